/** Types of the retrieval API that the server and the CLI call. */
import type { Chunk } from '../markdown/document.js';
import type { SearchFilter } from '../stores/vector-store.js';

export interface SearchOptions {
  /** Number of chunks wanted (default 5). */
  k?: number;
  filter?: SearchFilter;
  signal?: AbortSignal;
}

export interface SearchHit {
  /** 1-based rank. */
  rank: number;
  /** Re-ranked relevance score (see rerank.ts): comparable only within one result list. */
  score: number;
  chunk: Chunk;
}

export interface SearchResponse {
  hits: SearchHit[];
  /** True when the calibrated check judged that nothing in the docs answers the question. */
  outOfScope: boolean;
  /** 0..1 confidence that the best hit is relevant; the out-of-scope decision thresholds it. */
  confidence: number;
}

/** Hybrid retrieval over one index. */
export interface Retriever {
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  /** Chunks before and after a chunk in its document, in document order (the chunk included). */
  neighbours(chunkId: string, options?: { before?: number; after?: number; signal?: AbortSignal }): Promise<Chunk[]>;
  /** Every chunk of the document that holds this chunk, in order. */
  documentOf(chunkId: string, signal?: AbortSignal): Promise<Chunk[]>;
}

/** A numbered source in an assembled LLM context. */
export interface ContextSource {
  /** 1-based number used for `[n]` citations. */
  number: number;
  chunk: Chunk;
  score: number;
}

export interface AssembledContext {
  /** `[1] Title > Heading (url)` blocks joined, ready for the prompt. */
  text: string;
  sources: ContextSource[];
  tokens: number;
  /** Hits left out (least relevant first) to stay within the budget. */
  dropped: number;
}
