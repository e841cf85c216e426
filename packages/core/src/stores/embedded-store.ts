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
import { DenseMatrix } from './dense-matrix.js';
import { manifestStamp, payloadLine, readSnapshot, writeSnapshot } from './embedded-snapshot.js';
import type { FileKey, PayloadFile, Postings, SnapshotData, SnapshotToWrite, StoredPage } from './embedded-snapshot.js';
import { indexMetaDifferences, indexMismatchError, indexMissingError } from './index-meta.js';
import { assertValidPoints, assertValidQuery } from './point-validation.js';
import { compareIds, fuseReciprocalRanks, inverseDocumentFrequency, normalised, TopK } from './ranking.js';
import type { RankedId } from './ranking.js';
import { compileFilter, filterExcludesEverything } from './search-filter.js';
import { invertSparse } from './sparse-postings.mjs';
import { nextTurn } from '../workers/event-loop-turns.js';
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

/** Sparse vectors of slots 0..count-1 in CSR form: slot s holds [offsets[s], offsets[s+1]). */
interface ForwardSparse {
  offsets: Uint32Array;
  indices: Uint32Array;
  values: Float32Array;
}

/**
 * Postings in CSR form (see Postings): `terms` holds the distinct term indices
 * in ascending order. A sorted array searched by bisection costs a fraction of
 * a Map's memory on an index with hundreds of thousands of distinct terms.
 */
type InvertedIndex = Postings;

/** Postings of the page vectors (CSR, as InvertedIndex), over `pages` in this order. */
interface PageIndex extends InvertedIndex {
  pages: StoredPage[];
}

/** Position of `term` in the sorted `terms`, or -1. */
function ordinalOf(terms: Uint32Array, term: number): number {
  let low = 0;
  let high = terms.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = terms[middle] as number;
    if (value < term) low = middle + 1;
    else if (value > term) high = middle - 1;
    else return middle;
  }
  return -1;
}

/** Postings in CSR form over `count` slots' sparse vectors: the slots and values holding each term are one contiguous run. */
function buildPostings(forward: ForwardSparse, count: number): InvertedIndex {
  return invertSparse(forward.offsets, forward.indices, forward.values, count);
}

/**
 * The inverse of buildPostings: each slot's sparse vector, indices ascending.
 * A process that only searches keeps the postings alone and rebuilds the
 * per-slot vectors from them on its first write.
 */
function transposePostings(index: InvertedIndex, count: number): ForwardSparse {
  const offsets = new Uint32Array(count + 1);
  for (let p = 0; p < index.slots.length; p++) {
    const next = (index.slots[p] as number) + 1;
    offsets[next] = (offsets[next] as number) + 1;
  }
  for (let slot = 0; slot < count; slot++) offsets[slot + 1] = (offsets[slot + 1] as number) + (offsets[slot] as number);
  const cursor = offsets.slice(0, count);
  const indices = new Uint32Array(index.slots.length);
  const values = new Float32Array(index.slots.length);
  for (let ordinal = 0; ordinal < index.terms.length; ordinal++) {
    const term = index.terms[ordinal] as number;
    const end = index.offsets[ordinal + 1] as number;
    for (let p = index.offsets[ordinal] as number; p < end; p++) {
      const slot = index.slots[p] as number;
      const position = cursor[slot] as number;
      cursor[slot] = position + 1;
      indices[position] = term;
      values[position] = index.values[p] as number;
    }
  }
  return { offsets, indices, values };
}

/** Packs per-slot sparse vectors into one CSR block. */
function packSparse(entries: readonly SparseEntry[], count: number): ForwardSparse {
  let nonZeros = 0;
  for (let slot = 0; slot < count; slot++) nonZeros += (entries[slot] as SparseEntry).indices.length;
  const offsets = new Uint32Array(count + 1);
  const indices = new Uint32Array(nonZeros);
  const values = new Float32Array(nonZeros);
  let cursor = 0;
  for (let slot = 0; slot < count; slot++) {
    const entry = entries[slot] as SparseEntry;
    offsets[slot] = cursor;
    indices.set(entry.indices, cursor);
    values.set(entry.values, cursor);
    cursor += entry.indices.length;
  }
  offsets[count] = cursor;
  return { offsets, indices, values };
}

/** A slot's payload: the object, when written by this process, or its line in the snapshot's payload file. */
type PayloadRef = ChunkPayload | number;

/** Parsed payload lines kept per payload file: the sections that come back query after query. */
const PAYLOAD_CACHE_LIMIT = 2048;

// A filter's verdict on a file key, kept on the pooled key itself (symbol keys stay out of the snapshot's
// JSON): the filter then runs once per page rather than once per chunk, and a reader's version/locale
// filter, compiled once (search-filter.ts), keeps its verdicts from one question to the next.
const FILTERED_BY = Symbol('filteredBy');
const PASSES = Symbol('passes');
type JudgedKey = FileKey & { [FILTERED_BY]: unknown; [PASSES]: boolean };

function passes(key: FileKey, accept: (file: string, docId: string) => boolean): boolean {
  const judged = key as JudgedKey;
  if (judged[FILTERED_BY] !== accept) {
    judged[PASSES] = accept(key.file, key.docId);
    judged[FILTERED_BY] = accept;
  }
  return judged[PASSES];
}

/**
 * The live index of one collection: points in dense slots 0..count-1.
 *
 * Sparse vectors live in one of two forms, so that a process that only
 * searches holds them once: `inverted` (the postings search walks, as the
 * snapshot stores them) and `sparse` (one entry per slot, made on the first
 * write, which moves slots around). Payloads stay on disk until asked for;
 * memory holds what search and filters need of each point: its id, file key
 * and order.
 */
class IndexState {
  readonly dimensions: number;
  count = 0;
  ids: string[] = [];
  /** Per slot: the file, doc id and file hash (one shared object per distinct triple). */
  keys: FileKey[] = [];
  orders: number[] = [];
  private payloads: PayloadRef[] = [];
  private readonly keyPool = new Map<string, FileKey>();
  private readonly payloadCache = new Map<number, ChunkPayload>();
  /** Per-slot sparse vectors once the index is written to; null while it is only searched. */
  private sparse: SparseEntry[] | null = [];
  slotOf = new Map<string, number>();
  /** Dense vectors, unit length, row per slot. */
  vectors: DenseMatrix;
  /** Page-level sparse vectors by file (few: one per page, scored by a plain walk). */
  pages = new Map<string, StoredPage>();
  private pagePostings: PageIndex | null = null;
  private inverted: InvertedIndex | null = null;
  // Per-query scratch space, grown with the index and reused.
  private sparseScores = new Float64Array(0);
  private touched = new Int32Array(0);
  private readonly topK = new TopK();

  constructor(
    public meta: IndexMeta,
    /** The payload file of the snapshot this state was loaded from. */
    readonly source: PayloadFile | null = null,
  ) {
    this.dimensions = meta.dimensions;
    this.vectors = new DenseMatrix(meta.dimensions, 64);
  }

  static fromSnapshot(data: SnapshotData): IndexState {
    const state = new IndexState(data.meta, data.payloads);
    const count = data.ids.length;
    state.count = count;
    state.ids = data.ids;
    const keys = data.files.map((key) => state.internKey(key));
    state.keys = Array.from(data.fileOfSlot, (file) => keys[file] as FileKey);
    state.orders = Array.from(data.orderOfSlot);
    state.payloads = Array.from({ length: count }, (_, slot) => slot);
    state.vectors = data.vectors;
    state.sparse = null;
    state.inverted = data.postings;
    for (let slot = 0; slot < count; slot++) state.slotOf.set(data.ids[slot] as string, slot);
    for (const page of data.pages) state.pages.set(page.file, page);
    // The loader inverted the page vectors off the event loop; keep them when they cover every page, in order.
    if (data.pageIndex && state.pages.size === data.pages.length) state.pagePostings = { pages: data.pages, ...data.pageIndex };
    return state;
  }

  private internKey(key: FileKey): FileKey {
    const name = `${key.fileHash}\u0000${key.docId}\u0000${key.file}`;
    let pooled = this.keyPool.get(name);
    if (!pooled) {
      pooled = { file: key.file, docId: key.docId, fileHash: key.fileHash, [FILTERED_BY]: null, [PASSES]: false } as FileKey;
      this.keyPool.set(name, pooled);
    }
    return pooled;
  }

  /** The payloads of these slots, reading lines from the payload file where needed (synchronously, so no write can move a slot in between). */
  payloadsOf(slots: readonly number[]): ChunkPayload[] {
    return slots.map((slot) => {
      const ref = this.payloads[slot] as PayloadRef;
      return typeof ref === 'number' ? this.readPayload(ref) : ref;
    });
  }

  private readPayload(line: number): ChunkPayload {
    const cached = this.payloadCache.get(line);
    if (cached) {
      // Refresh its place: the oldest entry goes first.
      this.payloadCache.delete(line);
      this.payloadCache.set(line, cached);
      return cached;
    }
    const payload = (this.source as PayloadFile).readPayload(line);
    if (this.payloadCache.size >= PAYLOAD_CACHE_LIMIT) this.payloadCache.delete(this.payloadCache.keys().next().value as number);
    this.payloadCache.set(line, payload);
    return payload;
  }

  /** All sparse vectors as one CSR block, from whichever form holds them now. */
  private forwardSparse(): ForwardSparse {
    if (this.sparse) return packSparse(this.sparse, this.count);
    return transposePostings(this.invertedIndex(), this.count);
  }

  /** Per-slot sparse vectors, made from the postings on the first write. */
  private writableSparse(): SparseEntry[] {
    if (this.sparse) return this.sparse;
    const { offsets, indices, values } = this.forwardSparse();
    const sparse = new Array<SparseEntry>(this.count);
    for (let slot = 0; slot < this.count; slot++) {
      const start = offsets[slot] as number;
      const end = offsets[slot + 1] as number;
      sparse[slot] = { indices: indices.subarray(start, end), values: values.subarray(start, end) };
    }
    this.sparse = sparse;
    return sparse;
  }

  async toSnapshot(): Promise<SnapshotToWrite> {
    const count = this.count;
    const fileIndex = new Map<FileKey, number>();
    const files: FileKey[] = [];
    const fileOfSlot = new Uint32Array(count);
    for (let slot = 0; slot < count; slot++) {
      const key = this.keys[slot] as FileKey;
      let index = fileIndex.get(key);
      if (index === undefined) {
        index = files.length;
        fileIndex.set(key, index);
        files.push(key);
      }
      fileOfSlot[slot] = index;
    }
    const refs = this.payloads.slice(0, count);
    const source = this.source;
    // Lines kept from the loaded snapshot are copied as bytes, never parsed.
    const sourceBytes = source && refs.some((ref) => typeof ref === 'number') ? await source.readAll() : null;
    return {
      meta: this.meta,
      ids: this.ids.slice(0, count),
      files,
      fileOfSlot,
      orderOfSlot: Uint32Array.from(this.orders.slice(0, count)),
      vectors: this.vectors.rows(count),
      postings: this.invertedIndex(),
      pages: [...this.pages.values()].sort((a, b) => compareIds(a.file, b.file)),
      *payloadLines(): Iterable<Buffer> {
        for (const ref of refs) {
          if (typeof ref !== 'number') yield payloadLine(ref);
          else
            yield (sourceBytes as Buffer).subarray(
              (source as PayloadFile).lineStarts[ref],
              ((source as PayloadFile).lineStarts[ref + 1] as number) - 1,
            );
        }
      },
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
    const sparse = this.writableSparse();
    let slot = this.slotOf.get(point.id);
    if (slot === undefined) {
      slot = this.count++;
      this.vectors.ensureCapacity(this.count);
      this.slotOf.set(point.id, slot);
    }
    this.ids[slot] = point.id;
    this.payloads[slot] = point.payload;
    this.keys[slot] = this.internKey(point.payload);
    this.orders[slot] = point.payload.order;
    this.vectors.setRow(slot, normalised(point.dense));
    sparse[slot] = { indices: Uint32Array.from(point.sparse.indices), values: Float32Array.from(point.sparse.values) };
    this.inverted = null;
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    const sparse = this.writableSparse();
    // Move the last point into the hole so slots stay contiguous for the dense scan.
    const last = this.count - 1;
    if (slot !== last) {
      const movedId = this.ids[last] as string;
      this.ids[slot] = movedId;
      this.payloads[slot] = this.payloads[last] as PayloadRef;
      this.keys[slot] = this.keys[last] as FileKey;
      this.orders[slot] = this.orders[last] as number;
      sparse[slot] = sparse[last] as SparseEntry;
      this.vectors.copyRow(last, slot);
      this.slotOf.set(movedId, slot);
    }
    this.slotOf.delete(id);
    this.ids.length = last;
    this.payloads.length = last;
    this.keys.length = last;
    this.orders.length = last;
    sparse.length = last;
    this.count = last;
    this.inverted = null;
  }

  /** Ranks the points; the fused hits carry slots, whose payloads the caller takes with payloadsOf. */
  search(query: HybridQuery): Omit<HybridResult, 'fused'> & { fused: Array<RankedId & { slot: number }> } {
    if (this.count === 0 || filterExcludesEverything(query.filter)) return { fused: [], dense: [], sparse: [], pages: [] };
    const accept = compileFilter(query.filter);
    const dense = this.denseTop(normalised(query.dense), query.prefetchLimit, accept);
    const sparse = query.sparse.indices.length === 0 ? [] : this.sparseTop(query, accept);
    const fused = fuseReciprocalRanks([dense, sparse], query.limit).map(({ id, score }) => ({
      id,
      score,
      slot: this.slotOf.get(id) as number,
    }));
    const pages =
      query.pageSparse && query.pageSparse.indices.length > 0 ? this.pageTop(query.pageSparse, query.prefetchLimit, accept) : [];
    return { fused, dense, sparse, pages };
  }

  /** Page-level BM25: the same IDF formula over the page count, as Qdrant applies to the `page` vector. */
  private pageTop(query: SparseVector, limit: number, accept: ((file: string, docId: string) => boolean) | null): PageHit[] {
    const index = this.pageIndex();
    const scores = new Float64Array(index.pages.length);
    const touched = new Uint8Array(index.pages.length);
    query.indices.forEach((term, i) => {
      const ordinal = ordinalOf(index.terms, term);
      if (ordinal < 0) return;
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
    this.pagePostings = { pages, ...buildPostings(packSparse(pages, pages.length), pages.length) };
    return this.pagePostings;
  }

  private readonly idIsWorse = (a: number, b: number): boolean => compareIds(this.ids[a] as string, this.ids[b] as string) > 0;

  private denseTop(query: Float32Array, limit: number, accept: ((file: string, docId: string) => boolean) | null): RankedId[] {
    const { topK, keys } = this;
    topK.reset(limit);
    // Scoring every row and skipping the filtered-out ones costs no more than scoring only the kept rows one by one.
    const scores = this.vectors.scores(query, this.count);
    for (let slot = 0; slot < this.count; slot++) {
      const dot = scores[slot] as number;
      if (dot < topK.threshold) continue;
      if (accept) {
        if (!passes(keys[slot] as FileKey, accept)) continue;
      }
      topK.offer(slot, dot, this.idIsWorse);
    }
    return topK.drain(this.idIsWorse).map(({ slot, score }) => ({ id: this.ids[slot] as string, score }));
  }

  private sparseTop(query: HybridQuery, accept: ((file: string, docId: string) => boolean) | null): RankedId[] {
    const inverted = this.invertedIndex();
    const { sparseScores: scores, touched } = this;
    let touchedCount = 0;
    // NaN marks "not touched yet", so a zero product still counts as a match, as in Qdrant's posting walk.
    const { indices, values } = query.sparse;
    for (let i = 0; i < indices.length; i++) {
      const ordinal = ordinalOf(inverted.terms, indices[i] as number);
      if (ordinal < 0) continue;
      const start = inverted.offsets[ordinal] as number;
      const end = inverted.offsets[ordinal + 1] as number;
      const weight = (values[i] as number) * inverseDocumentFrequency(this.count, end - start);
      for (let p = start; p < end; p++) {
        const slot = inverted.slots[p] as number;
        if (Number.isNaN(scores[slot])) {
          scores[slot] = 0;
          touched[touchedCount++] = slot;
        }
        scores[slot] = (scores[slot] as number) + weight * (inverted.values[p] as number);
      }
    }
    const { topK, keys } = this;
    topK.reset(query.prefetchLimit);
    for (let t = 0; t < touchedCount; t++) {
      const slot = touched[t] as number;
      const score = scores[slot] as number;
      scores[slot] = Number.NaN;
      if (accept) {
        // As in denseTop: a score the top list would refuse anyway needs no filter check.
        if (score < topK.threshold) continue;
        if (!passes(keys[slot] as FileKey, accept)) continue;
      }
      topK.offer(slot, score, this.idIsWorse);
    }
    return topK.drain(this.idIsWorse).map(({ slot, score }) => ({ id: this.ids[slot] as string, score }));
  }

  /** Builds what search needs now (at load) rather than on the first search. */
  warm(): void {
    this.invertedIndex();
    this.pageIndex();
  }

  private invertedIndex(): InvertedIndex {
    if (!this.inverted) this.inverted = buildPostings(packSparse(this.sparse ?? [], this.count), this.count);
    if (this.sparseScores.length < this.count) {
      // NaN marks an untouched slot; sparseTop puts it back after each query.
      this.sparseScores = new Float64Array(this.count).fill(Number.NaN);
      this.touched = new Int32Array(this.count);
    }
    return this.inverted;
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
      this.replaceState(new IndexState(meta));
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
    this.replaceState(new IndexState(meta));
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
      const key = state.keys[slot] as FileKey;
      const id = state.ids[slot] as string;
      const entry = files.get(key.file);
      if (entry) entry.chunkIds.push(id);
      else files.set(key.file, { file: key.file, fileHash: key.fileHash, chunkIds: [id] });
    }
    return [...files.values()]
      .map((entry) => ({ ...entry, chunkIds: entry.chunkIds.sort(compareIds) }))
      .sort((a, b) => compareIds(a.file, b.file));
  }

  async hybridSearch(query: HybridQuery): Promise<HybridResult> {
    throwIfAborted(query.signal);
    const state = await this.requireState();
    assertValidQuery(query, state.dimensions);
    // Scoring every section is main-thread CPU: a loop iteration of its own (event-loop-turns.ts).
    await nextTurn();
    // While it waited, the reader may have gone or the store closed (a shutdown): fail as the store always does.
    throwIfAborted(query.signal);
    this.assertOpen();
    const { fused, dense, sparse, pages } = state.search(query);
    const payloads = state.payloadsOf(fused.map((hit) => hit.slot));
    return { fused: fused.map(({ id, score }, i) => ({ id, score, payload: payloads[i] as ChunkPayload })), dense, sparse, pages };
  }

  async getByIds(ids: string[], signal?: AbortSignal): Promise<ChunkPayload[]> {
    throwIfAborted(signal);
    await this.refresh();
    const state = this.state;
    if (!state) return [];
    const slots: number[] = [];
    for (const id of ids) {
      const slot = state.slotOf.get(id);
      if (slot !== undefined) slots.push(slot);
    }
    return state.payloadsOf(slots);
  }

  async getByFile(file: string, signal?: AbortSignal): Promise<ChunkPayload[]> {
    throwIfAborted(signal);
    await this.refresh();
    const state = this.state;
    if (!state) return [];
    const slots: number[] = [];
    for (let slot = 0; slot < state.count; slot++) if ((state.keys[slot] as FileKey).file === file) slots.push(slot);
    slots.sort((a, b) => (state.orders[a] as number) - (state.orders[b] as number));
    return state.payloadsOf(slots);
  }

  async commit(): Promise<void> {
    this.assertOpen();
    if (!this.dirty || !this.state) return;
    this.loadedStamp = await writeSnapshot(this.directory, await this.state.toSnapshot());
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
    await this.state?.source?.close();
    this.state = null;
  }

  /** Swaps in another state; the payload file of the one it replaces closes once searches still reading it are done. */
  private replaceState(next: IndexState | null): void {
    const previous = this.state;
    if (previous?.source && previous.source !== next?.source) previous.source.closeLater();
    this.state = next;
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
    // A prepare() or write may have started while we read (or the store closed): keep the newer view then.
    if (this.dirty || this.closed) {
      await snapshot?.data.payloads.close();
      return;
    }
    this.replaceState(snapshot ? IndexState.fromSnapshot(snapshot.data) : null);
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
