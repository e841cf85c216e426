/**
 * The chat model spec: one small interface, one implementation per provider
 * (gemini, openai-compatible, extractive), chosen once from configuration.
 * Retries live once, above the providers (see `retrying-stream.ts`).
 */
import type { FinishReason, TokenUsage } from '@docs-chat/core/protocol';
import type { ContextSource } from '@docs-chat/core';
// The providers import LlmError from here; they only use it inside functions, so the import cycle is harmless.
import { createExtractiveChatModel } from './extractive-chat-model.js';
import { createGeminiChatModel } from './gemini-chat-model.js';
import { createOpenAIChatModel } from './openai-chat-model.js';

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

export type ChatModelEvent =
  | { type: 'text'; text: string }
  | { type: 'finish'; reason: FinishReason; usage: TokenUsage | null };

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

export interface ChatModelConfig {
  provider: ChatModelProvider;
  /** Model name; each provider has a default when empty. */
  model: string;
  apiKey?: string;
  /** Stand-in or compatible endpoint (e.g. Ollama's http://localhost:11434/v1). */
  baseUrl?: string;
  /** An upstream call fails when nothing arrives for this long (first byte, or between stream events). Default 60 s. */
  timeoutMs?: number;
  /** Told before each retry, e.g. to log it; `error` is the failure that caused it. */
  onRetry?: (info: { attempt: number; delayMs: number; error: LlmError }) => void;
}

/** Picks the provider from configuration; an empty model means the provider's default. */
export function createChatModel(config: ChatModelConfig): ChatModel {
  switch (config.provider) {
    case 'gemini':
      if (!config.apiKey) {
        throw new LlmError('llm_auth', 'The gemini chat model needs an API key.', {
          hint: 'Set GEMINI_API_KEY, or LLM_PROVIDER=extractive to answer with quotes from the docs.',
        });
      }
      return createGeminiChatModel({
        apiKey: config.apiKey,
        model: config.model,
        ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
        ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
        ...(config.onRetry ? { onRetry: config.onRetry } : {}),
      });
    case 'openai':
      return createOpenAIChatModel({
        model: config.model,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
        ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
        ...(config.onRetry ? { onRetry: config.onRetry } : {}),
      });
    case 'extractive':
      return createExtractiveChatModel();
  }
}
