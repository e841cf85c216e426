/**
 * Chooses the embedder from configuration: the one place that knows every
 * provider. Everything above receives an `Embedder` and never asks which.
 */
import { DocsChatError } from '../errors.js';
import type { Embedder } from './embedder.js';
import { createGeminiEmbedder } from './gemini-embedder.js';
import { createLocalEmbedder } from './local-embedder.js';
import { createOpenAIEmbedder } from './openai-embedder.js';

export interface EmbedderSettings {
  provider: 'gemini' | 'openai' | 'local';
  /** The provider's default model when unset. */
  model?: string | undefined;
  dimensions?: number | undefined;
  apiKey?: string | undefined;
  /** Gemini: API root (the SDK appends `/v1beta`); OpenAI-compatible: the `/v1` URL. */
  baseUrl?: string | undefined;
  timeoutMs?: number | undefined;
}

export function createEmbedder(settings: EmbedderSettings): Embedder {
  const { provider, model, dimensions, apiKey, baseUrl, timeoutMs } = settings;
  switch (provider) {
    case 'gemini':
      if (!apiKey) {
        throw new DocsChatError('config_invalid', 'EMBEDDING_PROVIDER=gemini needs an API key.', {
          hint: 'Set GEMINI_API_KEY in .env, or set EMBEDDING_PROVIDER=local for offline embeddings.',
        });
      }
      return createGeminiEmbedder({
        apiKey,
        ...(model ? { model } : {}),
        ...(dimensions ? { dimensions } : {}),
        ...(baseUrl ? { baseUrl } : {}),
        ...(timeoutMs ? { timeoutMs } : {}),
      });
    case 'openai':
      return createOpenAIEmbedder({
        ...(apiKey ? { apiKey } : {}),
        ...(baseUrl ? { baseUrl } : {}),
        ...(model ? { model } : {}),
        ...(dimensions ? { dimensions } : {}),
        ...(timeoutMs ? { timeoutMs } : {}),
      });
    case 'local':
      return createLocalEmbedder(dimensions ? { dimensions } : {});
    default:
      throw new DocsChatError('config_invalid', `Unknown embedding provider "${String(provider)}".`, {
        hint: 'Set EMBEDDING_PROVIDER to gemini, openai or local.',
      });
  }
}
