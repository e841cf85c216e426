/**
 * Chooses the embedder from configuration: the one place that knows every
 * provider. Everything above receives an `Embedder` and never asks which.
 */
import { DocsChatError } from '../errors.js';
import type { Embedder } from './embedder.js';
import { createGeminiEmbedder } from './gemini-embedder.js';
import { createLocalEmbedder, LOCAL_EMBEDDER_MODEL } from './local-embedder.js';
import { createNeuralEmbedder, NEURAL_EMBEDDER_MODEL } from './neural-embedder.js';
import { createMixedEmbedder } from './mixed-embedder.js';
import { createOpenAIEmbedder } from './openai-embedder.js';

/**
 * Share of the hashing embedder's cosine in the default neural model. Measured
 * on the three dev sets (MRR@5 summed, dense weight 0.8): sentence encoder
 * alone 2.43, with 0.3 hashing 2.47, hashing alone 2.39. Hashing keeps the
 * dense view of exact identifiers and inflections that the encoder's 8k-piece
 * vocabulary splits apart.
 */
export const NEURAL_HASHING_SHARE = 0.3;
/** The `neural` provider's default model: the sentence encoder mixed with hashing (mixed-embedder.ts). */
export const DEFAULT_NEURAL_MODEL = `${NEURAL_EMBEDDER_MODEL}+${LOCAL_EMBEDDER_MODEL}@${NEURAL_HASHING_SHARE}`;

export interface EmbedderSettings {
  provider: 'gemini' | 'openai' | 'local' | 'neural';
  /** The provider's default model when unset. */
  model?: string | undefined;
  dimensions?: number | undefined;
  apiKey?: string | undefined;
  /** Gemini: API root (the SDK appends `/v1beta`); OpenAI-compatible: the `/v1` URL. */
  baseUrl?: string | undefined;
  timeoutMs?: number | undefined;
  /** Neural: worker threads. */
  threads?: number | undefined;
  /** Neural: tasks that may wait for a thread before `service_busy`. */
  queueLimit?: number | undefined;
  /** Neural: nice value of the worker threads on Linux (0 keeps the process's priority). */
  threadNiceness?: number | undefined;
}

export function createEmbedder(settings: EmbedderSettings): Embedder {
  const { provider, model, dimensions, apiKey, baseUrl, timeoutMs, threads, queueLimit, threadNiceness } = settings;
  switch (provider) {
    case 'gemini':
      if (!apiKey) {
        throw new DocsChatError('config_invalid', 'EMBEDDING_PROVIDER=gemini needs an API key.', {
          hint: 'Set GEMINI_API_KEY in .env, or set EMBEDDING_PROVIDER=neural (or local) for offline embeddings.',
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
    case 'neural': {
      const chosen = model ?? DEFAULT_NEURAL_MODEL;
      if (chosen !== DEFAULT_NEURAL_MODEL && chosen !== NEURAL_EMBEDDER_MODEL) {
        throw new DocsChatError('config_invalid', `EMBEDDING_MODEL="${chosen}" is not a model of the neural embedder.`, {
          hint: `Leave EMBEDDING_MODEL unset (${DEFAULT_NEURAL_MODEL}) or set it to ${NEURAL_EMBEDDER_MODEL} for the sentence encoder alone.`,
        });
      }
      const neural = createNeuralEmbedder({
        ...(threads ? { threads } : {}),
        ...(queueLimit !== undefined ? { maxQueue: queueLimit } : {}),
        ...(threadNiceness !== undefined ? { threadNiceness } : {}),
      });
      return chosen === DEFAULT_NEURAL_MODEL ? createMixedEmbedder(neural, createLocalEmbedder(), NEURAL_HASHING_SHARE) : neural;
    }
    default:
      throw new DocsChatError('config_invalid', `Unknown embedding provider "${String(provider)}".`, {
        hint: 'Set EMBEDDING_PROVIDER to neural, local, gemini or openai.',
      });
  }
}
