/**
 * The embedder for any OpenAI-compatible server (OpenAI, Ollama, vLLM, LM
 * Studio, Gemini's compatibility endpoint), through the `openai` SDK. The
 * SDK's retries are off (`maxRetries: 0`): retries live in the pipeline.
 */
import type OpenAI from 'openai';
import { DocsChatError } from '../errors.js';
import type { Embedder, EmbedRequest } from './embedder.js';
import { toEmbedderError } from './embedder-errors.js';
import { toUnitVector } from './unit-vector.js';

export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';
const DEFAULT_TIMEOUT_MS = 30_000;
/** Well below OpenAI's 2048 inputs per call, because compatible servers often cap lower. */
const DEFAULT_MAX_BATCH = 128;

/** Native vector sizes of common models, used when EMBEDDING_DIMENSIONS is not set. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'gemini-embedding-001': 3072,
  'nomic-embed-text': 768,
  'mxbai-embed-large': 1024,
  'all-minilm': 384,
  'bge-m3': 1024,
  'snowflake-arctic-embed': 1024,
};

export interface OpenAIEmbedderOptions {
  /** Optional for local servers that need none (Ollama, LM Studio). */
  apiKey?: string;
  /** The server's `/v1` URL; OpenAI's own when unset. */
  baseUrl?: string;
  model?: string;
  /**
   * Vector size. When given it is also sent as `dimensions` (models that can
   * shorten their vectors, like text-embedding-3-*); otherwise the model's
   * native size must be known.
   */
  dimensions?: number;
  maxBatchSize?: number;
  timeoutMs?: number;
}

export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const model = options.model ?? DEFAULT_OPENAI_EMBEDDING_MODEL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const dimensions = options.dimensions ?? KNOWN_DIMENSIONS[model.replace(/:latest$/, '')];
  if (dimensions === undefined) {
    throw new DocsChatError('config_invalid', `The vector size of embedding model "${model}" is not known.`, {
      hint: `Set EMBEDDING_DIMENSIONS to the size ${model} returns (see the model card).`,
    });
  }
  const { apiKey, baseUrl } = options;
  // The SDK loads with the first call, not with this module, which the core package's index exports: a server on
  // another embedder never holds it (issue 16 budget of 300 MB per server process).
  let loaded: Promise<OpenAI> | undefined;
  const client = (): Promise<OpenAI> =>
    (loaded ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          // The SDK insists on a key; servers that need none ignore this one.
          apiKey: apiKey || 'no-key-needed',
          ...(baseUrl ? { baseURL: baseUrl } : {}),
          maxRetries: 0,
          timeout: timeoutMs,
        }),
    ));

  const maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH;
  return {
    provider: 'openai',
    model,
    dimensions,
    maxBatchSize,
    async embed(request: EmbedRequest): Promise<Float32Array[]> {
      const { texts, signal } = request;
      if (texts.length === 0) return [];
      if (texts.length > maxBatchSize) {
        throw new RangeError(`This embedder takes at most ${maxBatchSize} texts per call, got ${texts.length}.`);
      }
      let response;
      try {
        const openai = await client();
        response = await openai.embeddings.create(
          {
            model,
            input: texts,
            // Explicit: without it the SDK asks for base64, which many compatible servers mishandle.
            encoding_format: 'float',
            ...(options.dimensions === undefined ? {} : { dimensions: options.dimensions }),
          },
          signal ? { signal } : {},
        );
      } catch (error) {
        throw toEmbedderError(error, {
          providerLabel: options.baseUrl ? `The embedding server at ${new URL(options.baseUrl).host}` : 'OpenAI',
          model,
          keyVariable: 'OPENAI_API_KEY',
          baseUrlVariable: 'OPENAI_BASE_URL',
          suggestedModel: DEFAULT_OPENAI_EMBEDDING_MODEL,
          signal,
          timeoutMs,
        });
      }
      const data = [...response.data].sort((left, right) => left.index - right.index);
      if (data.length !== texts.length) {
        throw new DocsChatError(
          'embedder_unavailable',
          `The embedding server returned ${data.length} embeddings for ${texts.length} texts.`,
          {
            hint: 'Try again; if it persists, lower the batch size or check the server logs.',
            retryable: true,
          },
        );
      }
      return data.map((entry) => {
        const values = decodeEmbedding(entry.embedding);
        if (values.length !== dimensions) {
          throw new DocsChatError('embedder_rejected', `${model} returned ${values.length}-dimensional vectors, expected ${dimensions}.`, {
            hint: `Set EMBEDDING_DIMENSIONS=${values.length}, or use a model that supports ${dimensions} dimensions.`,
          });
        }
        return toUnitVector(values);
      });
    },
  };
}

/** Some servers answer base64 even when asked for floats: accept both. */
function decodeEmbedding(embedding: number[] | string): ArrayLike<number> {
  if (typeof embedding !== 'string') return embedding;
  const bytes = Buffer.from(embedding, 'base64');
  const length = Math.floor(bytes.byteLength / 4);
  // Copy out: a pooled Buffer may start at an offset Float32Array cannot view.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + length * 4));
}
