/**
 * `ask_docs` through the same chat pipeline as `POST /chat` (retrieval, the
 * out-of-scope check, the prompt, the model, citations), collected into one
 * answer instead of a stream.
 */
import type { FinishReason, SourceRef } from '@docs-chat/core/protocol';
import type { ChatService } from '../chat/chat-service.js';
import type { ServerLogger } from '../chat/conversation-gateway.js';

export interface AskScope {
  version?: string;
  locale?: string;
  docs_instance?: string;
}

export interface AskResult {
  answer: string;
  sources: SourceRef[];
  /** `no_answer`: the docs do not cover the question (the out-of-scope check refused it). */
  finishReason: FinishReason;
  /** Notes the reader would see (another version answered, the answer was not saved, ...). */
  warnings: string[];
  /** Set when no answer could be produced; the message says what to do. */
  error?: { code: string; message: string; retryable: boolean };
}

/** Asks one question; never throws for a failed answer (see `error`). */
export type AskDocs = (question: string, scope: AskScope, signal: AbortSignal) => Promise<AskResult>;

export function createAskDocs(chat: () => Promise<ChatService>, logger: ServerLogger): AskDocs {
  return async (question, scope, signal) => {
    const service = await chat();
    const started = await service.start({ message: question, mode: 'general', ...scope }, signal, logger);
    // Only a follow-up can name an unknown conversation, and ask_docs never sends one.
    if (started.kind !== 'stream') throw new Error('ask_docs started a follow-up without a conversation');
    const result: AskResult = { answer: '', sources: [], finishReason: 'interrupted', warnings: [] };
    for await (const event of started.events) {
      switch (event.type) {
        case 'sources':
          result.sources = event.sources;
          break;
        case 'token':
          result.answer += event.content;
          break;
        case 'warning':
          // An agent has no reader to tell that the answer was not saved.
          if (event.code !== 'conversation_not_saved') result.warnings.push(event.message);
          break;
        case 'done':
          result.sources = event.sources;
          result.finishReason = event.finish_reason;
          break;
        case 'error':
          result.error = { code: event.code, message: event.message, retryable: event.retryable === true };
          result.finishReason = 'error';
          break;
        case 'meta':
          break;
      }
    }
    return result;
  };
}
