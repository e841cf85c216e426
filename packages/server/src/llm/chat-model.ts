/**
 * The chat model spec: one small interface, one implementation per provider
 * (gemini, openai-compatible, extractive), chosen once from configuration by
 * `createChatModel` in `create-chat-model.ts`, the one module that imports them.
 * Retries live once, above the providers (see `retrying-stream.ts`).
 */
import type { FinishReason, TokenUsage } from '@docs-chat/core/protocol';
import type { ContextSource } from '@docs-chat/core';

export type { ContextSource };

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatModelRequest {
  /** Instructions plus the numbered sources or the delimited selection, assembled by the chat route. */
  system: string;
  /** History (general mode only) with the reader's question last. */
  messages: ChatTurn[];
  /** The reader's question alone (the extractive model uses it). */
  question: string;
  /** Numbered sources in general mode, [] in selection mode. */
  sources: ContextSource[];
  /** The (truncated) highlighted text in selection mode. */
  selection?: string;
  signal: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
}

export type ChatModelEvent = { type: 'text'; text: string } | { type: 'finish'; reason: FinishReason; usage: TokenUsage | null };

export type ChatModelProvider = 'gemini' | 'openai' | 'extractive';

export interface ChatModel {
  readonly provider: ChatModelProvider;
  readonly model: string;
  /** Start-up check (GET models/{model}): throws LlmError code 'llm_auth' / 'llm_model_not_found' / 'llm_unavailable'. */
  verify(signal?: AbortSignal): Promise<void>;
  /**
   * Streams the answer. Retries (<= 3 attempts, backoff + jitter, RetryInfo honoured, none on 400/403/404) happen
   * inside, only before the first text event. Throws LlmError. Aborting the signal aborts the upstream HTTP request.
   */
  stream(request: ChatModelRequest): AsyncIterable<ChatModelEvent>;
}

export type LlmErrorCode =
  | 'llm_rate_limited'
  | 'llm_unavailable'
  | 'llm_auth'
  | 'llm_model_not_found'
  | 'llm_rejected'
  | 'llm_blocked'
  | 'llm_stream_cut'
  | 'aborted';

export interface LlmErrorOptions {
  retryable?: boolean;
  status?: number;
  /** What the admin or reader should do next. */
  hint?: string;
  /** Milliseconds the provider asked us to wait (RetryInfo / retry-after). */
  retryAfterMs?: number;
  cause?: unknown;
}

/** Every failure of a chat model, with a stable code; messages never contain the API key. */
export class LlmError extends Error {
  readonly code: LlmErrorCode;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly hint: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: LlmErrorCode, message: string, options: LlmErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LlmError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.status = options.status;
    this.hint = options.hint;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export function isLlmError(error: unknown): error is LlmError {
  return error instanceof LlmError;
}
