/**
 * The Gemini embedder, through `@google/genai`. One `embed` call is one
 * `batchEmbedContents` request (at most 100 texts); the SDK's own retries stay
 * off because retries live once, in the embedding pipeline.
 */
import type { EmbedContentConfig, GoogleGenAI } from '@google/genai';
import { DocsChatError } from '../errors.js';
import type { Embedder, EmbedRequest } from './embedder.js';
import { isGeminiInvalidKey, toEmbedderError } from './embedder-errors.js';
import { toUnitVector } from './unit-vector.js';

export const DEFAULT_GEMINI_EMBEDDING_MODEL = 'gemini-embedding-001';
export const DEFAULT_GEMINI_EMBEDDING_DIMENSIONS = 768;
/** Gemini rejects a batch of more than 100 texts with 400. */
export const GEMINI_MAX_BATCH = 100;
const DEFAULT_TIMEOUT_MS = 30_000;

export interface GeminiEmbedderOptions {
  apiKey: string;
  model?: string;
  dimensions?: number;
  /** Root of the API (the SDK appends `/v1beta`); for proxies and the local stand-in. */
  baseUrl?: string;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
}

export function createGeminiEmbedder(options: GeminiEmbedderOptions): Embedder {
  const model = options.model ?? DEFAULT_GEMINI_EMBEDDING_MODEL;
  const dimensions = options.dimensions ?? DEFAULT_GEMINI_EMBEDDING_DIMENSIONS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!options.apiKey) {
    throw new DocsChatError('config_invalid', 'The Gemini embedder needs an API key.', {
      hint: 'Set GEMINI_API_KEY, or EMBEDDING_PROVIDER=local for offline embeddings.',
    });
  }
  const { apiKey, baseUrl } = options;
  // The SDK loads with the first call, not with this module, which the core package's index exports: a server on
  // another embedder never holds it (7 MB resident; issue 16 budget of 300 MB per server process).
  let client: Promise<GoogleGenAI> | undefined;
  const ai = (): Promise<GoogleGenAI> =>
    (client ??= import('@google/genai').then(
      ({ GoogleGenAI }) =>
        new GoogleGenAI({
          apiKey,
          // No `retryOptions`: the SDK then makes exactly one attempt.
          httpOptions: { timeout: timeoutMs, ...(baseUrl ? { baseUrl } : {}) },
        }),
    ));

  return {
    provider: 'gemini',
    model,
    dimensions,
    maxBatchSize: GEMINI_MAX_BATCH,
    async embed(request: EmbedRequest): Promise<Float32Array[]> {
      const { texts, task, signal } = request;
      if (texts.length === 0) return [];
      if (texts.length > GEMINI_MAX_BATCH) {
        throw new RangeError(`Gemini takes at most ${GEMINI_MAX_BATCH} texts per call, got ${texts.length}.`);
      }
      const config: EmbedContentConfig = {
        taskType: task === 'document' ? 'RETRIEVAL_DOCUMENT' : 'RETRIEVAL_QUERY',
        outputDimensionality: dimensions,
        ...(signal ? { abortSignal: signal } : {}),
      };
      const title = task === 'document' ? titleConfig(request.titles, texts.length) : undefined;
      if (title !== undefined) config.title = title as string;

      let response;
      try {
        response = await (await ai()).models.embedContent({ model, contents: texts, config });
      } catch (error) {
        throw toEmbedderError(error, {
          providerLabel: 'Gemini',
          model,
          keyVariable: 'GEMINI_API_KEY',
          baseUrlVariable: 'GEMINI_BASE_URL',
          suggestedModel: DEFAULT_GEMINI_EMBEDDING_MODEL,
          signal,
          timeoutMs,
          isInvalidKey: isGeminiInvalidKey,
        });
      }
      const embeddings = response.embeddings ?? [];
      if (embeddings.length !== texts.length) {
        throw new DocsChatError('embedder_unavailable', `Gemini returned ${embeddings.length} embeddings for ${texts.length} texts.`, {
          hint: 'Try again; if it persists, report it with the model name.',
          retryable: true,
        });
      }
      return embeddings.map((embedding) => {
        const values = embedding.values ?? [];
        if (values.length !== dimensions) {
          throw new DocsChatError(
            'embedder_rejected',
            `Gemini returned ${values.length}-dimensional vectors from ${model}, expected ${dimensions}.`,
            {
              hint: `Set EMBEDDING_DIMENSIONS to a size ${model} supports (768, 1536 or 3072 for gemini-embedding-001).`,
            },
          );
        }
        return toUnitVector(values);
      });
    },
  };
}

/**
 * The SDK types `config.title` as one string for the whole batch, but in
 * 2.32 it copies an array element by element onto `requests[i].title`
 * (`setValueByPath` with a list value). Passing the per-text titles that way
 * keeps one request per batch instead of one per distinct title; the stand-in
 * test on the request body guards this against SDK upgrades.
 */
function titleConfig(titles: string[] | undefined, count: number): string | (string | undefined)[] | undefined {
  if (!titles) return undefined;
  if (titles.length !== count) throw new RangeError(`Got ${titles.length} titles for ${count} texts.`);
  const cleaned = titles.map((title) => (title.trim() === '' ? undefined : title.trim()));
  if (cleaned.every((title) => title === undefined)) return undefined;
  const first = cleaned[0];
  if (first !== undefined && cleaned.every((title) => title === first)) return first;
  return cleaned;
}
