/**
 * The layer above any Embedder: cache first, then batches no larger than the
 * provider takes, a few in flight at once, each retried when the failure is
 * retryable, all cancelled together on abort or on the first hard failure.
 * Providers stay small because this is written once, here.
 */
import { createHash } from 'node:crypto';
import { DocsChatError, isDocsChatError, throwIfAborted } from '../errors.js';
import { isRetryableError, withRetries } from '../retry.js';
import type { RetryAttemptInfo, RetryOptions } from '../retry.js';
import type { Embedder } from './embedder.js';
import type { EmbeddingCache } from './embedding-cache.js';

export interface DocumentToEmbed {
  /** Content hash of the chunk (stable across runs when the text does not change). */
  hash: string;
  text: string;
  title: string;
}

export interface EmbeddingStats {
  /** Calls made to the provider, retries included. */
  calls: number;
  /** Texts the provider embedded successfully. */
  texts: number;
  /** Documents served from the cache. */
  cacheHits: number;
  /** Retries after retryable failures. */
  retries: number;
  /** Cache writes that failed (embedding went on without them). */
  cacheErrors: number;
}

export type RetryPolicy = Pick<RetryOptions, 'attempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxServerDelayMs'>;

export interface EmbeddingPipelineOptions {
  embedder: Embedder;
  /** Document cache; none means every document is embedded. */
  cache?: EmbeddingCache;
  /** Batches in flight at once (default 2). */
  concurrency?: number;
  /** Caps the batch size below the provider's own limit. */
  maxBatchSize?: number;
  /** For ingest: patient, since a long run should survive a rate limit. */
  documentRetry?: RetryPolicy;
  /** For live questions: short, since a reader is waiting. */
  queryRetry?: RetryPolicy;
  /** Question embeddings kept in memory (default 256; 0 disables). */
  queryCacheSize?: number;
  /** Told about each retry, e.g. to log "rate limited, waiting 42 s". */
  onRetry?: (info: RetryAttemptInfo & { task: 'document' | 'query' }) => void;
  onCacheError?: (error: unknown) => void;
}

export interface EmbedDocumentsOptions {
  signal?: AbortSignal | undefined;
  /** Documents done (cached or embedded) out of the total. */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

export interface EmbeddingPipeline {
  readonly embedder: Embedder;
  readonly stats: Readonly<EmbeddingStats>;
  /** One unit vector per item, in order; cached vectors cost no call. */
  embedDocuments(items: DocumentToEmbed[], options?: EmbedDocumentsOptions): Promise<Float32Array[]>;
  /** The vector of a question (RETRIEVAL_QUERY for Gemini); never stored on disk. */
  embedQuery(text: string, options?: { signal?: AbortSignal | undefined }): Promise<Float32Array>;
}

const DEFAULT_DOCUMENT_RETRY: RetryPolicy = { attempts: 6, baseDelayMs: 1000, maxDelayMs: 30_000, maxServerDelayMs: 120_000 };
const DEFAULT_QUERY_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 2000, maxServerDelayMs: 5000 };

/**
 * The cache key of a document: its content hash and its title (Gemini embeds
 * the title with the text), tagged as a document so no other kind of vector
 * can ever share it.
 */
export function documentCacheKey(item: Pick<DocumentToEmbed, 'hash' | 'title'>): string {
  return createHash('sha256').update(`document\u0000${item.hash}\u0000${item.title}`).digest('hex');
}

export function createEmbeddingPipeline(options: EmbeddingPipelineOptions): EmbeddingPipeline {
  const { embedder, cache } = options;
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const batchSize = Math.max(1, Math.min(embedder.maxBatchSize, options.maxBatchSize ?? Number.POSITIVE_INFINITY));
  const documentRetry = { ...DEFAULT_DOCUMENT_RETRY, ...options.documentRetry };
  const queryRetry = { ...DEFAULT_QUERY_RETRY, ...options.queryRetry };
  const queryCacheSize = options.queryCacheSize ?? 256;
  const queryVectors = new Map<string, Float32Array>();
  const stats: EmbeddingStats = { calls: 0, texts: 0, cacheHits: 0, retries: 0, cacheErrors: 0 };

  async function callEmbedder(
    texts: string[],
    task: 'document' | 'query',
    titles: string[] | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> {
    const policy = task === 'document' ? documentRetry : queryRetry;
    const vectors = await withRetries(
      () => {
        stats.calls += 1;
        return embedder.embed({ texts, task, ...(titles ? { titles } : {}), ...(signal ? { signal } : {}) });
      },
      {
        ...policy,
        ...(signal ? { signal } : {}),
        // A full local queue is the server's own overload: a question is refused at once (HTTP 503 with
        // retry-after) rather than retried into the queue; an ingest waits its turn like any other retry.
        isRetryable: (error) => isRetryableError(error) && !(task === 'query' && isDocsChatError(error) && error.code === 'service_busy'),
        onRetry: (info) => {
          stats.retries += 1;
          options.onRetry?.({ ...info, task });
        },
      },
    );
    if (vectors.length !== texts.length) {
      throw new DocsChatError(
        'embedder_unavailable',
        `The ${embedder.provider} embedder returned ${vectors.length} vectors for ${texts.length} texts.`,
        {
          hint: 'This is a provider bug; try again or switch EMBEDDING_PROVIDER.',
        },
      );
    }
    stats.texts += texts.length;
    return vectors;
  }

  async function embedDocuments(items: DocumentToEmbed[], runOptions: EmbedDocumentsOptions = {}): Promise<Float32Array[]> {
    const { signal, onProgress } = runOptions;
    throwIfAborted(signal);
    const total = items.length;
    const keys = items.map(documentCacheKey);
    const vectorsByKey = cache ? await cache.getMany([...new Set(keys)]) : new Map<string, Float32Array>();
    let done = 0;
    // Each distinct missing document is embedded once, however often it appears.
    const pending = new Map<string, DocumentToEmbed>();
    keys.forEach((key, index) => {
      if (vectorsByKey.has(key)) {
        stats.cacheHits += 1;
        done += 1;
      } else if (!pending.has(key)) {
        pending.set(key, items[index]!);
      }
    });
    onProgress?.(done, total);
    const waiting = new Map<string, number>();
    for (const key of keys) if (!vectorsByKey.has(key)) waiting.set(key, (waiting.get(key) ?? 0) + 1);

    const missing = [...pending.entries()];
    const batches: [string, DocumentToEmbed][][] = [];
    for (let start = 0; start < missing.length; start += batchSize) batches.push(missing.slice(start, start + batchSize));

    // One controller for the whole run: the first hard failure stops the other batches too.
    const run = new AbortController();
    const onOuterAbort = (): void => run.abort(signal?.reason);
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    let next = 0;
    // Boxed: the first error thrown, which may itself be any value, undefined included.
    let failure: { error: unknown } | undefined;

    const worker = async (): Promise<void> => {
      while (failure === undefined && next < batches.length) {
        const batch = batches[next++]!;
        try {
          const vectors = await callEmbedder(
            batch.map(([, item]) => item.text),
            'document',
            batch.map(([, item]) => item.title),
            run.signal,
          );
          const entries = batch.map(([key], index) => ({ key, vector: vectors[index]! }));
          for (const { key, vector } of entries) {
            vectorsByKey.set(key, vector);
            done += waiting.get(key) ?? 1;
          }
          if (cache) {
            // Stored as each batch lands, so a killed ingest keeps what it paid for.
            await cache.putMany(entries).catch((error: unknown) => {
              stats.cacheErrors += 1;
              options.onCacheError?.(error);
            });
          }
          onProgress?.(done, total);
        } catch (error) {
          failure ??= { error };
          run.abort(error);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
    } finally {
      signal?.removeEventListener('abort', onOuterAbort);
    }
    if (failure !== undefined) {
      if (signal?.aborted) throw new DocsChatError('aborted', 'The embedding run was cancelled.', { cause: failure.error });
      throw failure.error;
    }
    return keys.map((key) => vectorsByKey.get(key)!);
  }

  async function embedQuery(text: string, queryOptions: { signal?: AbortSignal | undefined } = {}): Promise<Float32Array> {
    const { signal } = queryOptions;
    throwIfAborted(signal);
    const remembered = queryVectors.get(text);
    if (remembered) {
      // Refresh its place: the map's insertion order is the LRU order.
      queryVectors.delete(text);
      queryVectors.set(text, remembered);
      return Float32Array.from(remembered);
    }
    const [vector] = await callEmbedder([text], 'query', undefined, signal);
    if (queryCacheSize > 0) {
      queryVectors.set(text, vector!);
      if (queryVectors.size > queryCacheSize) queryVectors.delete(queryVectors.keys().next().value!);
    }
    return Float32Array.from(vector!);
  }

  return { embedder, stats, embedDocuments, embedQuery };
}
