/**
 * In-process vector store for sites that run without Qdrant. Dense search is
 * brute force over one contiguous Float32Array (exact, and fast enough for tens
 * of thousands of chunks); sparse search walks an inverted index built lazily
 * after writes. Scores follow Qdrant's semantics (see ranking.ts) so numbers
 * measured here carry over. Data is persisted as snapshots (embedded-snapshot.ts)
 * and a running process picks up a snapshot committed by another one.
 */
import { join } from 'node:path';
import { DocsChatError, throwIfAborted } from '../errors.js';
import { manifestStamp, readSnapshot, writeSnapshot } from './embedded-snapshot.js';
import type { SnapshotData, StoredPage } from './embedded-snapshot.js';
import { indexMetaDifferences, indexMismatchError, indexMissingError } from './index-meta.js';
import { assertValidPoints, assertValidQuery } from './point-validation.js';
import { compareIds, fuseReciprocalRanks, inverseDocumentFrequency, normalised, TopK } from './ranking.js';
import type { RankedId } from './ranking.js';
import { compileFilter, filterExcludesEverything } from './search-filter.js';
import type {
  ChunkPayload,
  HybridQuery,
  HybridResult,
  IndexedPage,
  IndexedPoint,
  PageHit,
  IndexMeta,
  StoreStatus,
  SparseVector,
  StoredFileState,
  VectorStore,
} from './vector-store.js';

export interface EmbeddedStoreOptions {
  /** Root data folder; the index lives in `${dataDir}/index/<collection>/`. */
  dataDir: string;
  collection?: string;
}

interface SparseEntry {
  indices: Uint32Array;
  values: Float32Array;
}

/** Postings in CSR form: the postings of term t are [offsets[t], offsets[t+1]). */
interface InvertedIndex {
  termOrdinals: Map<number, number>;
  offsets: Uint32Array;
  slots: Uint32Array;
  values: Float32Array;
}

/** Postings of the page vectors (CSR, as InvertedIndex), over `pages` in this order. */
interface PageIndex extends InvertedIndex {
  pages: StoredPage[];
}

/**
 * Postings in CSR form over `vectors` (each slot's sparse vector, in slot
 * order): the slots and values holding each term are one contiguous run.
 */
function buildPostings(count: number, vectorAt: (slot: number) => { indices: ArrayLike<number>; values: ArrayLike<number> }): InvertedIndex {
  const termOrdinals = new Map<number, number>();
  const frequencies: number[] = [];
  for (let slot = 0; slot < count; slot++) {
    const { indices } = vectorAt(slot);
    for (let i = 0; i < indices.length; i++) {
      const term = indices[i] as number;
      const ordinal = termOrdinals.get(term);
      if (ordinal === undefined) {
        termOrdinals.set(term, frequencies.length);
        frequencies.push(1);
      } else {
        frequencies[ordinal] = (frequencies[ordinal] as number) + 1;
      }
    }
  }
  const offsets = new Uint32Array(frequencies.length + 1);
  for (let t = 0; t < frequencies.length; t++) offsets[t + 1] = (offsets[t] as number) + (frequencies[t] as number);
  const total = offsets[frequencies.length] as number;
  const slots = new Uint32Array(total);
  const values = new Float32Array(total);
  const cursor = offsets.slice(0, frequencies.length);
  for (let slot = 0; slot < count; slot++) {
    const vector = vectorAt(slot);
    for (let i = 0; i < vector.indices.length; i++) {
      const ordinal = termOrdinals.get(vector.indices[i] as number) as number;
      const position = cursor[ordinal] as number;
      cursor[ordinal] = position + 1;
      slots[position] = slot;
      values[position] = vector.values[i] as number;
    }
  }
  return { termOrdinals, offsets, slots, values };
}

/** Dot product of two vectors of `dimensions` floats. */
function dotProduct(query: Float32Array, row: Float32Array, dimensions: number): number {
  const unrolled = dimensions - (dimensions % 4);
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let d = 0;
  for (; d < unrolled; d += 4) {
    a0 += (query[d] as number) * (row[d] as number);
    a1 += (query[d + 1] as number) * (row[d + 1] as number);
    a2 += (query[d + 2] as number) * (row[d + 2] as number);
    a3 += (query[d + 3] as number) * (row[d + 3] as number);
  }
  for (; d < dimensions; d++) a0 += (query[d] as number) * (row[d] as number);
  return a0 + a1 + a2 + a3;
}

/**
 * Scores every row against the query: one small typed array per row lets V8
 * drop bounds checks in the dot product, faster than indexing one big array at
 * an offset.
 */
function scoreRows(query: Float32Array, rows: Float32Array[], count: number, dimensions: number, out: Float64Array): void {
  for (let slot = 0; slot < count; slot++) out[slot] = dotProduct(query, rows[slot] as Float32Array, dimensions);
}

/** The live index of one collection: points in dense slots 0..count-1. */
class IndexState {
  readonly dimensions: number;
  count = 0;
  ids: string[] = [];
  payloads: ChunkPayload[] = [];
  sparse: SparseEntry[] = [];
  slotOf = new Map<string, number>();
  vectors: Float32Array;
  /** Page-level sparse vectors by file (few: one per page, scored by a plain walk). */
  pages = new Map<string, StoredPage>();
  private pagePostings: PageIndex | null = null;
  private inverted: InvertedIndex | null = null;
  // Per-query scratch space, grown with the index and reused.
  private sparseScores = new Float64Array(0);
  private touched = new Int32Array(0);
  private readonly topK = new TopK();

  constructor(public meta: IndexMeta) {
    this.dimensions = meta.dimensions;
    this.vectors = new Float32Array(64 * meta.dimensions);
  }

  static fromSnapshot(data: SnapshotData): IndexState {
    const state = new IndexState(data.meta);
    const count = data.ids.length;
    state.count = count;
    state.ids = data.ids;
    state.payloads = data.payloads;
    state.vectors = data.vectors;
    state.sparse = new Array<SparseEntry>(count);
    for (let slot = 0; slot < count; slot++) {
      const start = data.sparseOffsets[slot] as number;
      const end = data.sparseOffsets[slot + 1] as number;
      state.sparse[slot] = { indices: data.sparseIndices.subarray(start, end), values: data.sparseValues.subarray(start, end) };
      state.slotOf.set(data.ids[slot] as string, slot);
    }
    for (const page of data.pages) state.pages.set(page.file, page);
    return state;
  }

  toSnapshot(): SnapshotData {
    let nonZeros = 0;
    for (let slot = 0; slot < this.count; slot++) nonZeros += (this.sparse[slot] as SparseEntry).indices.length;
    const sparseOffsets = new Uint32Array(this.count + 1);
    const sparseIndices = new Uint32Array(nonZeros);
    const sparseValues = new Float32Array(nonZeros);
    let cursor = 0;
    for (let slot = 0; slot < this.count; slot++) {
      const entry = this.sparse[slot] as SparseEntry;
      sparseOffsets[slot] = cursor;
      sparseIndices.set(entry.indices, cursor);
      sparseValues.set(entry.values, cursor);
      cursor += entry.indices.length;
    }
    sparseOffsets[this.count] = cursor;
    return {
      meta: this.meta,
      ids: this.ids.slice(0, this.count),
      payloads: this.payloads.slice(0, this.count),
      vectors: this.vectors.subarray(0, this.count * this.dimensions),
      sparseOffsets,
      sparseIndices,
      sparseValues,
      pages: [...this.pages.values()].sort((a, b) => compareIds(a.file, b.file)),
    };
  }

  upsertPage(page: IndexedPage): void {
    this.pages.set(page.file, {
      file: page.file,
      docId: page.docId,
      indices: Uint32Array.from(page.sparse.indices),
      values: Float32Array.from(page.sparse.values),
    });
    this.pagePostings = null;
  }

  deletePage(file: string): boolean {
    this.pagePostings = null;
    return this.pages.delete(file);
  }

  upsert(point: IndexedPoint): void {
    let slot = this.slotOf.get(point.id);
    if (slot === undefined) {
      slot = this.count++;
      this.ensureCapacity(this.count);
      this.slotOf.set(point.id, slot);
    }
    this.ids[slot] = point.id;
    this.payloads[slot] = point.payload;
    this.vectors.set(normalised(point.dense), slot * this.dimensions);
    this.sparse[slot] = { indices: Uint32Array.from(point.sparse.indices), values: Float32Array.from(point.sparse.values) };
    this.inverted = null;
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    // Move the last point into the hole so slots stay contiguous for the dense scan.
    const last = this.count - 1;
    if (slot !== last) {
      const movedId = this.ids[last] as string;
      this.ids[slot] = movedId;
      this.payloads[slot] = this.payloads[last] as ChunkPayload;
      this.sparse[slot] = this.sparse[last] as SparseEntry;
      this.vectors.copyWithin(slot * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.slotOf.set(movedId, slot);
    }
    this.slotOf.delete(id);
    this.ids.length = last;
    this.payloads.length = last;
    this.sparse.length = last;
    this.count = last;
    this.inverted = null;
  }

  search(query: HybridQuery): HybridResult {
    if (this.count === 0 || filterExcludesEverything(query.filter)) return { fused: [], dense: [], sparse: [], pages: [] };
    const accept = compileFilter(query.filter);
    const dense = this.denseTop(normalised(query.dense), query.prefetchLimit, accept);
    const sparse = query.sparse.indices.length === 0 ? [] : this.sparseTop(query, accept);
    const fused = fuseReciprocalRanks([dense, sparse], query.limit).map(({ id, score }) => ({
      id,
      score,
      payload: this.payloads[this.slotOf.get(id) as number] as ChunkPayload,
    }));
    const pages = query.pageSparse && query.pageSparse.indices.length > 0 ? this.pageTop(query.pageSparse, query.prefetchLimit, accept) : [];
    return { fused, dense, sparse, pages };
  }

  /** Page-level BM25: the same IDF formula over the page count, as Qdrant applies to the `page` vector. */
  private pageTop(query: SparseVector, limit: number, accept: ((file: string, docId: string) => boolean) | null): PageHit[] {
    const index = this.pageIndex();
    const scores = new Float64Array(index.pages.length);
    const touched = new Uint8Array(index.pages.length);
    query.indices.forEach((term, i) => {
      const ordinal = index.termOrdinals.get(term);
      if (ordinal === undefined) return;
      const start = index.offsets[ordinal] as number;
      const end = index.offsets[ordinal + 1] as number;
      const weight = (query.values[i] as number) * inverseDocumentFrequency(index.pages.length, end - start);
      for (let p = start; p < end; p++) {
        const page = index.slots[p] as number;
        scores[page] = (scores[page] as number) + weight * (index.values[p] as number);
        touched[page] = 1;
      }
    });
    const hits: PageHit[] = [];
    for (let ordinal = 0; ordinal < index.pages.length; ordinal++) {
      if (touched[ordinal] === 0) continue;
      const page = index.pages[ordinal] as StoredPage;
      if (!accept || accept(page.file, page.docId)) hits.push({ file: page.file, score: scores[ordinal] as number });
    }
    return hits.sort((a, b) => b.score - a.score || compareIds(a.file, b.file)).slice(0, limit);
  }

  /** Inverted index over the page vectors in CSR form (as for chunks), rebuilt after page writes. */
  private pageIndex(): PageIndex {
    if (this.pagePostings) return this.pagePostings;
    const pages = [...this.pages.values()];
    this.pagePostings = { pages, ...buildPostings(pages.length, (slot) => pages[slot] as StoredPage) };
    return this.pagePostings;
  }

  private readonly idIsWorse = (a: number, b: number): boolean => compareIds(this.ids[a] as string, this.ids[b] as string) > 0;

  /**
   * One view per slot into `vectors`, made once and reused by the dense scan
   * (see scoreRows). Views stay valid while `vectors` is the same buffer; a
   * grown buffer gets new ones.
   */
  private rows: Float32Array[] = [];
  private rowsOf: Float32Array | null = null;

  private rowViews(): Float32Array[] {
    const { vectors, dimensions } = this;
    if (this.rowsOf !== vectors) {
      this.rows = [];
      this.rowsOf = vectors;
    }
    for (let slot = this.rows.length; slot < this.count; slot++) {
      this.rows.push(vectors.subarray(slot * dimensions, (slot + 1) * dimensions));
    }
    return this.rows;
  }

  private denseTop(query: Float32Array, limit: number, accept: ((file: string, docId: string) => boolean) | null): RankedId[] {
    const { topK } = this;
    topK.reset(limit);
    if (accept) {
      const rows = this.rowViews();
      for (let slot = 0; slot < this.count; slot++) {
        const payload = this.payloads[slot] as ChunkPayload;
        if (!accept(payload.file, payload.docId)) continue;
        const dot = dotProduct(query, rows[slot] as Float32Array, this.dimensions);
        if (dot >= topK.threshold) topK.offer(slot, dot, this.idIsWorse);
      }
    } else {
      const scores = this.denseScores(query);
      for (let slot = 0; slot < this.count; slot++) {
        const dot = scores[slot] as number;
        if (dot >= topK.threshold) topK.offer(slot, dot, this.idIsWorse);
      }
    }
    return topK.drain(this.idIsWorse).map(({ slot, score }) => ({ id: this.ids[slot] as string, score }));
  }

  private denseScratch = new Float64Array(0);

  /** Cosine of the query with every slot, in one tight loop (see scoreRows). */
  private denseScores(query: Float32Array): Float64Array {
    if (this.denseScratch.length < this.count) this.denseScratch = new Float64Array(Math.max(this.count, 64));
    scoreRows(query, this.rowViews(), this.count, this.dimensions, this.denseScratch);
    return this.denseScratch;
  }

  private sparseTop(query: HybridQuery, accept: ((file: string, docId: string) => boolean) | null): RankedId[] {
    const inverted = this.invertedIndex();
    const { sparseScores: scores, touched } = this;
    let touchedCount = 0;
    // NaN marks "not touched yet", so a zero product still counts as a match, as in Qdrant's posting walk.
    const { indices, values } = query.sparse;
    for (let i = 0; i < indices.length; i++) {
      const ordinal = inverted.termOrdinals.get(indices[i] as number);
      if (ordinal === undefined) continue;
      const start = inverted.offsets[ordinal] as number;
      const end = inverted.offsets[ordinal + 1] as number;
      const weight = (values[i] as number) * inverseDocumentFrequency(this.count, end - start);
      for (let p = start; p < end; p++) {
        const slot = inverted.slots[p] as number;
        if (Number.isNaN(scores[slot] as number)) {
          scores[slot] = 0;
          touched[touchedCount++] = slot;
        }
        scores[slot] = (scores[slot] as number) + weight * (inverted.values[p] as number);
      }
    }
    const { topK, payloads } = this;
    topK.reset(query.prefetchLimit);
    for (let t = 0; t < touchedCount; t++) {
      const slot = touched[t] as number;
      const score = scores[slot] as number;
      scores[slot] = Number.NaN;
      if (accept) {
        const payload = payloads[slot] as ChunkPayload;
        if (!accept(payload.file, payload.docId)) continue;
      }
      topK.offer(slot, score, this.idIsWorse);
    }
    return topK.drain(this.idIsWorse).map(({ slot, score }) => ({ id: this.ids[slot] as string, score }));
  }

  /** Builds the sparse inverted index now (at load) rather than on the first search. */
  warm(): void {
    this.invertedIndex();
    this.pageIndex();
  }

  private invertedIndex(): InvertedIndex {
    if (this.inverted) return this.inverted;
    const postings = buildPostings(this.count, (slot) => this.sparse[slot] as SparseEntry);
    if (this.sparseScores.length < this.count) {
      this.sparseScores = new Float64Array(this.count);
      this.touched = new Int32Array(this.count);
    }
    this.sparseScores.fill(Number.NaN);
    this.inverted = postings;
    return this.inverted;
  }

  private ensureCapacity(count: number): void {
    if (count * this.dimensions <= this.vectors.length) return;
    const grown = new Float32Array(Math.max(count, Math.ceil((this.vectors.length / this.dimensions) * 1.5) + 64) * this.dimensions);
    grown.set(this.vectors.subarray(0, (count - 1) * this.dimensions));
    this.vectors = grown;
  }
}

class EmbeddedStore implements VectorStore {
  readonly backend = 'embedded' as const;
  readonly collection: string;
  private readonly directory: string;
  private state: IndexState | null = null;
  /** Stamp of the manifest `state` came from (null: no snapshot on disk when last looked). */
  private loadedStamp: string | null = null;
  private loaded = false;
  /** Writes not yet committed: while set, this process's own view wins over newer snapshots on disk. */
  private dirty = false;
  private refreshing: Promise<void> | null = null;
  private closed = false;

  constructor(options: EmbeddedStoreOptions) {
    this.collection = options.collection ?? 'docusaurus-book';
    if (!/^[A-Za-z0-9._-]+$/.test(this.collection) || this.collection.startsWith('.')) {
      throw new DocsChatError('config_invalid', `Collection name "${this.collection}" cannot be used as a folder name.`, {
        hint: 'Use letters, digits, dots, dashes and underscores only.',
      });
    }
    this.directory = join(options.dataDir, 'index', this.collection);
  }

  async readMeta(signal?: AbortSignal): Promise<IndexMeta | null> {
    throwIfAborted(signal);
    await this.refresh();
    return this.state?.meta ?? null;
  }

  async prepare(meta: IndexMeta, options: { rebuild: boolean }): Promise<void> {
    this.assertOpen();
    if (options.rebuild) {
      // The old snapshot keeps serving other processes until commit() swaps the new one in.
      this.state = new IndexState(meta);
      this.dirty = true;
      this.loaded = true;
      return;
    }
    await this.refresh();
    if (this.state) {
      const differences = indexMetaDifferences(this.state.meta, meta);
      if (differences.length > 0) throw indexMismatchError(`at ${this.directory}`, differences);
      return;
    }
    this.state = new IndexState(meta);
    this.dirty = true;
  }

  async upsert(points: IndexedPoint[], signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    const state = await this.requireState();
    assertValidPoints(points, state.dimensions);
    for (const point of points) state.upsert(point);
    if (points.length > 0) this.dirty = true;
  }

  async deleteByIds(ids: string[], signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    const state = await this.requireState();
    for (const id of ids) state.delete(id);
    if (ids.length > 0) this.dirty = true;
  }

  async upsertPages(pages: IndexedPage[], signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    const state = await this.requireState();
    for (const page of pages) state.upsertPage(page);
    if (pages.length > 0) this.dirty = true;
  }

  async deletePages(files: string[], signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    const state = await this.requireState();
    for (const file of files) if (state.deletePage(file)) this.dirty = true;
  }

  async updateMetaExtra(extra: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal);
    const state = await this.requireState();
    state.meta = { ...state.meta, extra };
    this.dirty = true;
  }

  async listFiles(signal?: AbortSignal): Promise<StoredFileState[]> {
    throwIfAborted(signal);
    await this.refresh();
    const state = this.state;
    if (!state) return [];
    const files = new Map<string, StoredFileState>();
    for (let slot = 0; slot < state.count; slot++) {
      const payload = state.payloads[slot] as ChunkPayload;
      const entry = files.get(payload.file);
      if (entry) entry.chunkIds.push(payload.id);
      else files.set(payload.file, { file: payload.file, fileHash: payload.fileHash, chunkIds: [payload.id] });
    }
    return [...files.values()]
      .map((entry) => ({ ...entry, chunkIds: entry.chunkIds.sort(compareIds) }))
      .sort((a, b) => compareIds(a.file, b.file));
  }

  async hybridSearch(query: HybridQuery): Promise<HybridResult> {
    throwIfAborted(query.signal);
    const state = await this.requireState();
    assertValidQuery(query, state.dimensions);
    return state.search(query);
  }

  async getByIds(ids: string[], signal?: AbortSignal): Promise<ChunkPayload[]> {
    throwIfAborted(signal);
    await this.refresh();
    const state = this.state;
    if (!state) return [];
    const found: ChunkPayload[] = [];
    for (const id of ids) {
      const slot = state.slotOf.get(id);
      if (slot !== undefined) found.push(state.payloads[slot] as ChunkPayload);
    }
    return found;
  }

  async getByFile(file: string, signal?: AbortSignal): Promise<ChunkPayload[]> {
    throwIfAborted(signal);
    await this.refresh();
    const state = this.state;
    if (!state) return [];
    const chunks: ChunkPayload[] = [];
    for (let slot = 0; slot < state.count; slot++) {
      const payload = state.payloads[slot] as ChunkPayload;
      if (payload.file === file) chunks.push(payload);
    }
    return chunks.sort((a, b) => a.order - b.order);
  }

  async commit(): Promise<void> {
    this.assertOpen();
    if (!this.dirty || !this.state) return;
    this.loadedStamp = await writeSnapshot(this.directory, this.state.toSnapshot());
    this.dirty = false;
  }

  async status(signal?: AbortSignal): Promise<StoreStatus> {
    throwIfAborted(signal);
    await this.refresh();
    return { backend: this.backend, collection: this.collection, vectors: this.state?.count ?? 0 };
  }

  async close(): Promise<void> {
    // Uncommitted writes are dropped on purpose: only commit() publishes.
    this.closed = true;
    this.state = null;
  }

  private async requireState(): Promise<IndexState> {
    await this.refresh();
    if (!this.state) throw indexMissingError(`at ${this.directory}`);
    return this.state;
  }

  /** Loads the snapshot on first use and reloads when another process committed a newer one. */
  private async refresh(): Promise<void> {
    this.assertOpen();
    if (this.dirty) return;
    if (!this.refreshing) {
      this.refreshing = this.reloadIfChanged().finally(() => {
        this.refreshing = null;
      });
    }
    await this.refreshing;
  }

  private async reloadIfChanged(): Promise<void> {
    const stamp = await manifestStamp(this.directory);
    if (this.loaded && stamp === this.loadedStamp) return;
    const snapshot = await readSnapshot(this.directory);
    // A prepare() or write may have started while we read: keep the newer in-process view then.
    if (this.dirty) return;
    this.state = snapshot ? IndexState.fromSnapshot(snapshot.data) : null;
    this.state?.warm();
    this.loadedStamp = snapshot?.stamp ?? null;
    this.loaded = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new DocsChatError('store_unavailable', 'The embedded store was closed.');
  }
}

/** Creates the embedded (in-process, file-backed) vector store. */
export function createEmbeddedStore(options: EmbeddedStoreOptions): VectorStore {
  return new EmbeddedStore(options);
}
