/**
 * The embedder provider spec. One implementation per provider, created by a
 * `createXEmbedder(settings)` factory; batching, retries and caching live above
 * it (see `embedding-pipeline.ts`), never inside a provider.
 */
export type EmbeddingTask = 'document' | 'query';

export interface EmbedRequest {
  texts: string[];
  task: EmbeddingTask;
  /** Document titles, same length as `texts`, for providers that use them (Gemini RETRIEVAL_DOCUMENT). */
  titles?: string[];
  signal?: AbortSignal;
}

export interface Embedder {
  /** `gemini` | `openai` | `local` | `neural` */
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
  /** Largest number of texts one `embed` call may carry. */
  readonly maxBatchSize: number;
  /** Returns one L2-normalised vector per text, in order. Throws DocsChatError. */
  embed(request: EmbedRequest): Promise<Float32Array[]>;
  /** Releases what the provider holds (the neural embedder's worker threads); absent when there is nothing to release. */
  close?(): Promise<void>;
}
