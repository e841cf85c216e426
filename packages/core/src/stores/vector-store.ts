/**
 * The vector store provider spec: one interface, one implementation per backend
 * (`embedded`, `qdrant`), chosen from configuration. Both implement the same
 * retrieval semantics: dense cosine + sparse dot product with IDF applied by the
 * store (Qdrant's `modifier: idf`), fused with Reciprocal Rank Fusion exactly as
 * Qdrant does (score = sum of 1 / (k + rank), rank zero-based, k = 2).
 */
import type { Chunk } from '../markdown/document.js';

/** Sparse vector with unique, ascending indices. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/** What the index was built with; mixing embedders is refused. */
export interface IndexMeta {
  embedderProvider: string;
  embedderModel: string;
  dimensions: number;
  /** Version tag of the sparse encoder (tokeniser + weighting); a change needs a rebuild. */
  sparseEncoder: string;
  createdAt: string;
  /** Free-form state an embedder or the ingest keeps with the index. */
  extra?: Record<string, unknown>;
}

/** The payload stored with every point: the chunk minus its vectors. */
export type ChunkPayload = Chunk;

export interface IndexedPoint {
  id: string;
  dense: Float32Array;
  sparse: SparseVector;
  payload: ChunkPayload;
}

/**
 * A whole page as one sparse vector (page-level BM25). Pages live beside the
 * chunks (Qdrant: points with only the sparse vector `page`, payload `kind: 'page'`)
 * and never show up in chunk searches or listings.
 */
export interface IndexedPage {
  /** Path of the page relative to the docs folder: the page's key. */
  file: string;
  docId: string;
  sparse: SparseVector;
}

export interface SearchFilter {
  /**
   * Keep chunks of files inside this folder, at any depth (e.g. `tutorials/`). It names a folder, not the
   * start of a name: `tutorials` is read as `tutorials/` and does not match `tutorials-old/` (Qdrant matches it
   * exactly against the file's indexed folder prefixes).
   */
  filePrefix?: string;
  /** Keep chunks from exactly these files (an empty list matches nothing). */
  files?: string[];
  /** Keep chunks of these doc ids (an empty list matches nothing). */
  docIds?: string[];
  /**
   * Keep chunks of these docs versions, as `instance:version` pairs (`default:2.0`, `blog:` for the blog).
   * Chunks of a plain docs folder, which carry no version, always pass.
   */
  versions?: string[];
  /** Keep chunks of these locales; chunks without a locale (a plain docs folder) always pass. */
  locales?: string[];
}

export interface HybridQuery {
  dense: Float32Array;
  sparse: SparseVector;
  /** Number of fused results wanted. */
  limit: number;
  /** Candidates taken from each of dense and sparse before fusion (>= limit). */
  prefetchLimit: number;
  /** Also rank pages (page-level BM25) with this query vector, up to `prefetchLimit` pages. */
  pageSparse?: SparseVector;
  filter?: SearchFilter;
  signal?: AbortSignal;
}

export interface ScoredChunk {
  id: string;
  /** Fused RRF score: a rank number, not a similarity. */
  score: number;
  payload: ChunkPayload;
}

export interface RawHit {
  id: string;
  score: number;
}

export interface HybridResult {
  /** Fused results, best first. */
  fused: ScoredChunk[];
  /** Best raw dense hits (cosine similarity), best first: what calibration looks at. */
  dense: RawHit[];
  /** Best raw sparse hits (IDF-weighted dot product), best first. */
  sparse: RawHit[];
  /** Best pages for `pageSparse` (IDF over pages), best first; empty when no page query was asked. */
  pages: PageHit[];
}

export interface PageHit {
  file: string;
  score: number;
}

/** Per-file state the store holds, from which the ingest decides what changed. */
export interface StoredFileState {
  file: string;
  fileHash: string;
  chunkIds: string[];
}

export interface StoreStatus {
  backend: string;
  collection: string;
  vectors: number;
}

export interface VectorStore {
  readonly backend: 'embedded' | 'qdrant';
  readonly collection: string;
  /** Meta of the existing index, or null when there is none yet. Throws `index_corrupt` on an unreadable store. */
  readMeta(signal?: AbortSignal): Promise<IndexMeta | null>;
  /** Creates the index (dropping any existing one when `rebuild`), or checks the existing meta matches. */
  prepare(meta: IndexMeta, options: { rebuild: boolean }): Promise<void>;
  upsert(points: IndexedPoint[], signal?: AbortSignal): Promise<void>;
  deleteByIds(ids: string[], signal?: AbortSignal): Promise<void>;
  /** Adds or replaces the page vectors of these files. */
  upsertPages(pages: IndexedPage[], signal?: AbortSignal): Promise<void>;
  /** Removes the page vectors of these files (unknown files are ignored). */
  deletePages(files: string[], signal?: AbortSignal): Promise<void>;
  /** Replaces the stored meta's `extra` (corpus statistics the ingest keeps with the index); published by commit(). */
  updateMetaExtra(extra: Record<string, unknown>, signal?: AbortSignal): Promise<void>;
  /** Per-file hashes and chunk ids currently in the index. */
  listFiles(signal?: AbortSignal): Promise<StoredFileState[]>;
  hybridSearch(query: HybridQuery): Promise<HybridResult>;
  /** Chunks by id, in the order asked (missing ids left out). */
  getByIds(ids: string[], signal?: AbortSignal): Promise<ChunkPayload[]>;
  /** All chunks of one file, in document order. */
  getByFile(file: string, signal?: AbortSignal): Promise<ChunkPayload[]>;
  /** Makes written data durable and visible to other processes (the embedded store writes its snapshot). */
  commit(): Promise<void>;
  status(signal?: AbortSignal): Promise<StoreStatus>;
  close(): Promise<void>;
}
