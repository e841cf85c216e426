/**
 * Gemini: the official @google/genai SDK checks the key and model at start-up;
 * answers stream over SSE read directly (see gemini-sse-stream.ts for why).
 */
import type { GoogleGenAI } from '@google/genai';
import type { FinishReason, TokenUsage } from '@docs-chat/core/protocol';
import type { ChatModel, ChatModelEvent, ChatModelRequest } from './chat-model.js';
import { LlmError } from './chat-model.js';
import { toLlmError } from './llm-errors.js';
import { createGeminiStreamClient, type GeminiStreamChunk } from './gemini-sse-stream.js';
import { createNodeHttpFetch } from './node-http-fetch.js';
import type { ProviderNames } from './llm-errors.js';
import { streamWithRetries } from './retrying-stream.js';
import type { RetryListener, RetryPolicy } from './retrying-stream.js';

/**
 * `gemini-2.5-flash` retires on 2026-12-01 and the 3.x Flash line is current;
 * the alias always points at the current stable Flash model, so a default
 * install keeps working across retirements. Admins who want answers that do
 * not change under them pin a version with LLM_MODEL (e.g. gemini-3.8-flash).
 */
export const DEFAULT_GEMINI_MODEL = 'gemini-flash-latest';

export interface GeminiChatModelOptions {
  apiKey: string;
  model?: string;
  /** Root URL of the API (a stand-in in tests); the SDK appends /v1beta/... */
  baseUrl?: string;
  /** No byte for this long fails the attempt (default 60 s). */
  timeoutMs?: number;
  retryPolicy?: RetryPolicy;
  onRetry?: RetryListener;
}

const FINISH_REASONS: Record<string, FinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'safety',
  RECITATION: 'safety',
  BLOCKLIST: 'safety',
  PROHIBITED_CONTENT: 'safety',
  SPII: 'safety',
  IMAGE_SAFETY: 'safety',
};

export function geminiFinishReason(reason: string): FinishReason {
  return FINISH_REASONS[reason] ?? 'other';
}

function usageOf(response: GeminiStreamChunk): TokenUsage | null {
  const metadata = response.usageMetadata;
  if (!metadata) return null;
  return {
    prompt_tokens: metadata.promptTokenCount ?? null,
    // Thinking tokens are billed as output, so they count as completion here.
    completion_tokens:
      metadata.candidatesTokenCount === undefined && metadata.thoughtsTokenCount === undefined
        ? null
        : (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0),
    total_tokens: metadata.totalTokenCount ?? null,
  };
}

/** The REST body of generateContent / streamGenerateContent. */
function requestBody(request: ChatModelRequest): object {
  const generationConfig = {
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
  };
  return {
    contents: request.messages.map((turn) => ({ role: turn.role === 'assistant' ? 'model' : 'user', parts: [{ text: turn.content }] })),
    systemInstruction: { parts: [{ text: request.system }] },
    ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {}),
  };
}

export function createGeminiChatModel(options: GeminiChatModelOptions): ChatModel {
  const model = options.model || DEFAULT_GEMINI_MODEL;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const names: ProviderNames = { service: 'Gemini', keyVariable: 'GEMINI_API_KEY', model };
  // SDK retries stay off (no retryOptions): they live once in streamWithRetries, which knows about the first token.
  // The SDK serves only the key check (answers stream through gemini-sse-stream.ts), so it loads with that check, not
  // with the server: a server on another model never holds it (7 MB resident; issue 16 budget of 300 MB per process).
  let client: Promise<GoogleGenAI> | undefined;
  const ai = (): Promise<GoogleGenAI> =>
    (client ??= import('@google/genai').then(
      ({ GoogleGenAI }) =>
        new GoogleGenAI({
          apiKey: options.apiKey,
          httpOptions: {
            // Node's own HTTP client under the SDK (see node-http-fetch.ts).
            fetch: createNodeHttpFetch().fetch,
            // The SDK appends /v1beta itself; accept a base URL copied with it.
            ...(options.baseUrl ? { baseUrl: options.baseUrl.replace(/\/v1beta\/?$/, '') } : {}),
          },
        }),
    ));
  const streaming = createGeminiStreamClient({ apiKey: options.apiKey, model, ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}) });

  async function* openAttempt(request: ChatModelRequest, signal: AbortSignal): AsyncGenerator<ChatModelEvent> {
    const stream = streaming.stream(requestBody(request), signal);
    let finishReason: string | undefined;
    let usage: TokenUsage | null = null;
    for await (const chunk of stream) {
      const blockReason = chunk.promptFeedback?.blockReason;
      if (blockReason && !chunk.candidates?.length) {
        throw new LlmError('llm_blocked', `Gemini declined the question (${blockReason}).`, {
          hint: 'Rephrase the question; the model’s safety settings blocked it.',
        });
      }
      usage = usageOf(chunk) ?? usage;
      const candidate = chunk.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        // Thinking models send their reasoning as parts marked `thought`: never show it as the answer.
        if (part.thought || typeof part.text !== 'string' || part.text === '') continue;
        yield { type: 'text', text: part.text };
      }
      if (candidate?.finishReason) finishReason = candidate.finishReason;
    }
    if (finishReason !== undefined) yield { type: 'finish', reason: geminiFinishReason(finishReason), usage };
  }

  return {
    provider: 'gemini',
    model,
    async verify(signal?: AbortSignal): Promise<void> {
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let actions: string[] | undefined;
      try {
        actions = (await (await ai()).models.get({ model, config: { abortSignal: combined } })).supportedActions;
      } catch (error) {
        if (timeout.aborted && !signal?.aborted) {
          throw new LlmError('llm_unavailable', `Gemini did not answer within ${timeoutMs} ms.`, {
            retryable: true,
            hint: 'Check the network path to Gemini (and GEMINI_BASE_URL if set).',
            cause: error,
          });
        }
        throw toLlmError(error, names);
      }
      // An embedding model passes the look-up but cannot answer: say so at start-up rather than on the first question.
      if (actions && actions.length > 0 && !actions.includes('generateContent')) {
        throw new LlmError(
          'llm_model_not_found',
          `The Gemini model "${model}" (LLM_MODEL) cannot generate text; it supports ${actions.join(', ')}.`,
          {
            hint: `Set LLM_MODEL to a text model such as ${DEFAULT_GEMINI_MODEL}.`,
          },
        );
      }
    },
    stream(request: ChatModelRequest): AsyncIterable<ChatModelEvent> {
      return streamWithRetries((signal) => openAttempt(request, signal), {
        signal: request.signal,
        idleTimeoutMs: timeoutMs,
        service: 'Gemini',
        toLlmError: (error) => toLlmError(error, names),
        ...(options.retryPolicy ? { policy: options.retryPolicy } : {}),
        ...(options.onRetry ? { onRetry: options.onRetry } : {}),
      });
    },
  };
}
