/**
 * Any OpenAI-compatible chat endpoint through the official `openai` SDK:
 * OpenAI, Gemini's compatible endpoint, Ollama, vLLM, LM Studio.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { FinishReason, TokenUsage } from '@docs-chat/core/protocol';
import type { ChatModel, ChatModelEvent, ChatModelRequest } from './chat-model.js';
import { LlmError } from './chat-model.js';
import { toLlmError } from './llm-errors.js';
import { createNodeHttpFetch } from './node-http-fetch.js';
import type { ProviderNames } from './llm-errors.js';
import { streamWithRetries } from './retrying-stream.js';
import type { RetryListener, RetryPolicy } from './retrying-stream.js';

/** Used when LLM_MODEL is empty; compatible servers (Ollama, vLLM) need LLM_MODEL set to a model they serve. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';

export interface OpenAIChatModelOptions {
  /** Local servers (Ollama, vLLM) need none. */
  apiKey?: string;
  model?: string;
  /** API root including /v1, e.g. http://localhost:11434/v1; OpenAI's own when empty. */
  baseUrl?: string;
  /** No byte for this long fails the attempt (default 60 s). */
  timeoutMs?: number;
  retryPolicy?: RetryPolicy;
  onRetry?: RetryListener;
}

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'safety',
};

export function openAIFinishReason(reason: string): FinishReason {
  return FINISH_REASONS[reason] ?? 'other';
}

function toMessages(request: ChatModelRequest): ChatCompletionMessageParam[] {
  return [{ role: 'system', content: request.system }, ...request.messages.map((turn) => ({ role: turn.role, content: turn.content }))];
}

export function createOpenAIChatModel(options: OpenAIChatModelOptions): ChatModel {
  const model = options.model || DEFAULT_OPENAI_MODEL;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const names: ProviderNames = { service: 'The OpenAI-compatible endpoint', keyVariable: 'OPENAI_API_KEY', model };
  // The SDK loads with the first call, not with the server: a server on another model never holds it (issue 16
  // budget of 300 MB per server process).
  let loaded: Promise<OpenAI> | undefined;
  const client = (): Promise<OpenAI> =>
    (loaded ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          // The SDK refuses to start without a key; servers that need none ignore this placeholder.
          apiKey: options.apiKey || 'no-key-needed',
          ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
          // Retries live once in streamWithRetries, which knows whether text was already shown.
          maxRetries: 0,
          timeout: timeoutMs,
          // Node's own HTTP client, as for Gemini (see node-http-fetch.ts).
          fetch: createNodeHttpFetch().fetch,
        }),
    ));

  async function* openAttempt(request: ChatModelRequest, signal: AbortSignal): AsyncGenerator<ChatModelEvent> {
    const openai = await client();
    const stream = await openai.chat.completions.create(
      {
        model,
        messages: toMessages(request),
        stream: true,
        stream_options: { include_usage: true },
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        // max_tokens rather than max_completion_tokens: every compatible server (Ollama, vLLM, Gemini) knows it.
        ...(request.maxOutputTokens === undefined ? {} : { max_tokens: request.maxOutputTokens }),
      },
      { signal },
    );
    let finishReason: string | undefined;
    let usage: TokenUsage | null = null;
    for await (const chunk of stream) {
      if (chunk.usage) {
        usage = {
          prompt_tokens: chunk.usage.prompt_tokens ?? null,
          completion_tokens: chunk.usage.completion_tokens ?? null,
          total_tokens: chunk.usage.total_tokens ?? null,
        };
      }
      const choice = chunk.choices[0];
      const text = choice?.delta?.content;
      if (typeof text === 'string' && text !== '') yield { type: 'text', text };
      if (choice?.delta && 'refusal' in choice.delta && typeof choice.delta.refusal === 'string' && choice.delta.refusal !== '') {
        throw new LlmError('llm_blocked', 'The model refused to answer.', { hint: 'Rephrase the question.' });
      }
      if (choice?.finish_reason) finishReason = choice.finish_reason;
    }
    if (finishReason !== undefined) yield { type: 'finish', reason: openAIFinishReason(finishReason), usage };
  }

  return {
    provider: 'openai',
    model,
    async verify(signal?: AbortSignal): Promise<void> {
      try {
        await (await client()).models.retrieve(model, signal ? { signal } : {});
      } catch (error) {
        throw toLlmError(error, names);
      }
    },
    stream(request: ChatModelRequest): AsyncIterable<ChatModelEvent> {
      return streamWithRetries((signal) => openAttempt(request, signal), {
        signal: request.signal,
        idleTimeoutMs: timeoutMs,
        service: names.service,
        toLlmError: (error) => toLlmError(error, names),
        ...(options.retryPolicy ? { policy: options.retryPolicy } : {}),
        ...(options.onRetry ? { onRetry: options.onRetry } : {}),
      });
    },
  };
}
