/**
 * Chooses the chat model from configuration: the one place that knows every
 * provider. Everything above receives a `ChatModel` and never asks which.
 */
import { type ChatModel, type ChatModelProvider, LlmError } from './chat-model.js';
import { createExtractiveChatModel } from './extractive-chat-model.js';
import { createGeminiChatModel } from './gemini-chat-model.js';
import { createOpenAIChatModel } from './openai-chat-model.js';

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
