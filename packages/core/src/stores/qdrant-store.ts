/**
 * Vector store on Qdrant (1.10 or newer) through the official REST client.
 * One collection holds the named dense vector `dense` (Cosine) and the named
 * sparse vector `bm25` with `modifier: idf`, so Qdrant applies the same IDF and
 * RRF the embedded store applies. The index meta lives in the collection as a
 * reserved point without vectors (payload `kind: 'meta'`), which every query,
 * count and listing filters out: it works on every 1.10+ server, whereas the
 * collection-level `metadata` field only exists on recent servers.
 */
import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import { DocsChatError, throwIfAborted } from '../errors.js';
import { uuidV5 } from '../markdown/stable-id.js';
import { indexMetaDifferences, indexMismatchError, indexMissingError, isIndexMeta, REBUILD_HINT } from './index-meta.js';
import { assertValidPoints, assertValidQuery, isPointId } from './point-validation.js';
import { displayUrl, toStoreError } from './qdrant-errors.js';
import { compareIds } from './ranking.js';
import type { RankedId } from './ranking.js';
import { filterExcludesEverything, folderPrefixes, normaliseFilePrefix, scopeKeysOf } from './search-filter.js';
import type {
  ChunkPayload,
  HybridQuery,
  HybridResult,
  IndexedPage,
  IndexedPoint,
  IndexMeta,
  SearchFilter,
  StoreStatus,
  StoredFileState,
  VectorStore,
} from './vector-store.js';

export interface QdrantStoreOptions {
  url: string;
  apiKey?: string;
  collection?: string;
  /** Per-request timeout (default 15 s). */
  timeoutMs?: number;
  /** Let the client compare its version with the server's at start-up (it only logs a warning; default false). */
  checkCompatibility?: boolean;
  /** Points per upsert request (default 64). */
  upsertBatchSize?: number;
}

/** Fixed id of the point that carries the index meta. */
export const META_POINT_ID = 'd0c5c4a7-0000-4000-8000-00000000e7a0';
const DENSE = 'dense';
const SPARSE = 'bm25';
/** Page-level sparse vector: only page points carry it, so IDF is counted over pages. */
const PAGE = 'page';
/** Payload fields we filter on, each with a keyword index. */
const INDEXED_FIELDS = ['file', 'docId', 'filePrefixes', 'kind', 'versionKey', 'localeKey'] as const;
const NOT_META: Schemas['Condition'] = { key: 'kind', match: { value: 'meta' } };
/** Listings and counts see chunks only (page points have no dense/bm25 vector, so searches skip them already). */
const NOT_CHUNK: Schemas['Condition'] = { key: 'kind', match: { any: ['meta', 'page'] } };
const PAGE_SIZE = 512;

/** What is stored per chunk: the chunk plus the fields only filters need. */
type StoredChunkPayload = ChunkPayload & { kind: 'chunk'; filePrefixes: string[]; versionKey: string; localeKey: string };

class QdrantStore implements VectorStore {
  readonly backend = 'qdrant' as const;
  readonly collection: string;
  private readonly client: () => Promise<QdrantClient>;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly upsertBatchSize: number;
  /** Dimensions of the collection, once known (from prepare or the stored meta). */
  private dimensions: number | null = null;

  constructor(options: QdrantStoreOptions) {
    this.collection = options.collection ?? 'docusaurus-book';
    this.url = displayUrl(options.url);
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.upsertBatchSize = options.upsertBatchSize ?? 64;
    // The REST client (with undici, 18 MB resident) loads with the first call, not with this module, which the core
    // package's index exports: a server on the embedded store never holds it (issue 16 budget of 300 MB per process).
    const { url, apiKey } = options;
    const checkCompatibility = options.checkCompatibility ?? false;
    const timeout = this.timeoutMs;
    let client: Promise<QdrantClient> | undefined;
    this.client = () =>
      (client ??= import('@qdrant/js-client-rest').then(({ QdrantClient }) => {
        try {
          return new QdrantClient({ url, ...(apiKey ? { apiKey } : {}), timeout, checkCompatibility });
        } catch (error) {
          throw new DocsChatError(
            'config_invalid',
            `QDRANT_URL "${this.url}" is not usable: ${error instanceof Error ? error.message : String(error)}`,
            {
              hint: 'Set QDRANT_URL to the full URL of the Qdrant REST endpoint, e.g. http://localhost:6333.',
            },
          );
        }
      }));
  }

  async readMeta(signal?: AbortSignal): Promise<IndexMeta | null> {
    if (!(await this.call('checking the collection', (client) => client.collectionExists(this.collection), signal)).exists) return null;
    const meta = await this.fetchMeta(signal);
    if (meta) this.dimensions = meta.dimensions;
    return meta;
  }

  async prepare(meta: IndexMeta, options: { rebuild: boolean }): Promise<void> {
    let exists = (await this.call('checking the collection', (client) => client.collectionExists(this.collection))).exists;
    if (exists && options.rebuild) {
      await this.call('dropping the collection for a rebuild', (client) => client.deleteCollection(this.collection));
      exists = false;
    }
    if (exists) {
      await this.adoptExisting(meta);
    } else {
      await this.call('creating the collection', (client) =>
        client.createCollection(this.collection, {
          vectors: { [DENSE]: { size: meta.dimensions, distance: 'Cosine' } },
          sparse_vectors: { [SPARSE]: { modifier: 'idf' }, [PAGE]: { modifier: 'idf' } },
        }),
      );
      await this.writeMeta(meta);
    }
    // Idempotent: also adds indexes an older docs-chat did not create.
    for (const field of INDEXED_FIELDS) {
      await this.call(`indexing payload field ${field}`, (client) =>
        client.createPayloadIndex(this.collection, { field_name: field, field_schema: 'keyword', wait: true }),
      );
    }
    this.dimensions = meta.dimensions;
  }

  async upsert(points: IndexedPoint[], signal?: AbortSignal): Promise<void> {
    if (points.length === 0) return;
    assertValidPoints(points, await this.knownDimensions(signal));
    for (let start = 0; start < points.length; start += this.upsertBatchSize) {
      const batch = points.slice(start, start + this.upsertBatchSize).map((point) => ({
        id: point.id,
        vector: {
          [DENSE]: Array.from(point.dense),
          [SPARSE]: { indices: [...point.sparse.indices], values: [...point.sparse.values] },
        },
        payload: toStoredPayload(point.payload),
      }));
      await this.call(
        `upserting ${batch.length} points`,
        (client) => client.upsert(this.collection, { wait: true, points: batch }),
        signal,
      );
    }
  }

  async deleteByIds(ids: string[], signal?: AbortSignal): Promise<void> {
    const chunkIds = ids.filter((id) => isPointId(id) && id !== META_POINT_ID);
    for (let start = 0; start < chunkIds.length; start += 256) {
      const batch = chunkIds.slice(start, start + 256);
      await this.call(`deleting ${batch.length} points`, (client) => client.delete(this.collection, { wait: true, points: batch }), signal);
    }
  }

  async upsertPages(pages: IndexedPage[], signal?: AbortSignal): Promise<void> {
    for (let start = 0; start < pages.length; start += this.upsertBatchSize) {
      const batch = pages.slice(start, start + this.upsertBatchSize).map((page) => ({
        id: pagePointId(page.file),
        vector: { [PAGE]: { indices: [...page.sparse.indices], values: [...page.sparse.values] } },
        payload: { kind: 'page', file: page.file, docId: page.docId, filePrefixes: folderPrefixes(page.file), ...scopeFields(page.file) },
      }));
      await this.call(`upserting ${batch.length} pages`, (client) => client.upsert(this.collection, { wait: true, points: batch }), signal);
    }
  }

  async deletePages(files: string[], signal?: AbortSignal): Promise<void> {
    for (let start = 0; start < files.length; start += 256) {
      const batch = files.slice(start, start + 256).map(pagePointId);
      await this.call(`deleting ${batch.length} pages`, (client) => client.delete(this.collection, { wait: true, points: batch }), signal);
    }
  }

  async updateMetaExtra(extra: Record<string, unknown>, signal?: AbortSignal): Promise<void> {
    const meta = await this.fetchMeta(signal);
    if (!meta) throw indexMissingError(`in Qdrant collection "${this.collection}" at ${this.url}`);
    await this.writeMeta({ ...meta, extra }, signal);
  }

  async listFiles(signal?: AbortSignal): Promise<StoredFileState[]> {
    if (!(await this.call('checking the collection', (client) => client.collectionExists(this.collection), signal)).exists) return [];
    const files = new Map<string, StoredFileState>();
    await this.scrollAll({ must_not: [NOT_CHUNK] }, ['file', 'fileHash'], signal, (id, payload) => {
      const file = String(payload.file);
      const entry = files.get(file);
      if (entry) entry.chunkIds.push(id);
      else files.set(file, { file, fileHash: String(payload.fileHash), chunkIds: [id] });
    });
    return [...files.values()]
      .map((entry) => ({ ...entry, chunkIds: entry.chunkIds.sort(compareIds) }))
      .sort((a, b) => compareIds(a.file, b.file));
  }

  async hybridSearch(query: HybridQuery): Promise<HybridResult> {
    assertValidQuery(query, await this.knownDimensions(query.signal));
    if (filterExcludesEverything(query.filter)) return { fused: [], dense: [], sparse: [], pages: [] };
    const filter = toQdrantFilter(query.filter);
    const dense = Array.from(query.dense);
    const hasSparse = query.sparse.indices.length > 0;
    const sparse = { indices: [...query.sparse.indices], values: [...query.sparse.values] };
    const denseSearch = { query: dense, using: DENSE, limit: query.prefetchLimit, filter };
    const sparseSearch = { query: sparse, using: SPARSE, limit: query.prefetchLimit, filter };
    // One round trip: the fused query plus the two raw lists it fuses, which calibration needs.
    const searches: Schemas['QueryRequest'][] = [
      {
        prefetch: hasSparse ? [denseSearch, sparseSearch] : [denseSearch],
        query: { fusion: 'rrf' },
        limit: query.limit,
        with_payload: true,
      },
      { ...denseSearch, with_payload: false },
      ...(hasSparse ? [{ ...sparseSearch, with_payload: false }] : []),
    ];
    const pageSparse = query.pageSparse && query.pageSparse.indices.length > 0 ? query.pageSparse : null;
    if (pageSparse) {
      searches.push({
        query: { indices: [...pageSparse.indices], values: [...pageSparse.values] },
        using: PAGE,
        limit: query.prefetchLimit,
        filter,
        with_payload: ['file'],
      });
    }
    const responses = await this.call('searching', (client) => client.queryBatch(this.collection, { searches }), query.signal);
    const [fusedResponse, denseResponse] = responses;
    const sparseResponse = hasSparse ? responses[2] : undefined;
    const pageResponse = pageSparse ? responses[hasSparse ? 3 : 2] : undefined;
    const pages = (pageResponse?.points ?? [])
      .map((point) => ({ file: String(point.payload?.file), score: point.score }))
      .sort((a, b) => b.score - a.score || compareIds(a.file, b.file));
    const denseHits = rawHits(denseResponse?.points);
    const sparseHits = rawHits(sparseResponse?.points);
    const fused = (fusedResponse?.points ?? []).map((point) => ({
      id: String(point.id),
      score: point.score,
      payload: fromStoredPayload(point.payload),
    }));
    // Qdrant leaves RRF ties in arbitrary order; order them as the embedded store does.
    const bestPosition = new Map<string, number>();
    for (const list of [denseHits, sparseHits]) {
      list.forEach((hit, position) => bestPosition.set(hit.id, Math.min(bestPosition.get(hit.id) ?? position, position)));
    }
    fused.sort(
      (a, b) => b.score - a.score || (bestPosition.get(a.id) ?? Infinity) - (bestPosition.get(b.id) ?? Infinity) || compareIds(a.id, b.id),
    );
    return { fused, dense: denseHits, sparse: sparseHits, pages };
  }

  async getByIds(ids: string[], signal?: AbortSignal): Promise<ChunkPayload[]> {
    const wanted = ids.filter((id) => isPointId(id) && id !== META_POINT_ID);
    if (wanted.length === 0) return [];
    const records = await this.call(
      `fetching ${wanted.length} chunks`,
      (client) => client.retrieve(this.collection, { ids: wanted, with_payload: true, with_vector: false }),
      signal,
    );
    const byId = new Map(records.map((record) => [String(record.id), fromStoredPayload(record.payload)]));
    return ids.flatMap((id) => {
      const chunk = byId.get(id);
      return chunk ? [chunk] : [];
    });
  }

  async getByFile(file: string, signal?: AbortSignal): Promise<ChunkPayload[]> {
    const chunks: ChunkPayload[] = [];
    // Sorted here rather than with `order_by`, which needs an extra range index and forbids paging by offset.
    await this.scrollAll({ must: [{ key: 'file', match: { value: file } }], must_not: [NOT_CHUNK] }, true, signal, (_id, payload) =>
      chunks.push(fromStoredPayload(payload)),
    );
    return chunks.sort((a, b) => a.order - b.order);
  }

  async commit(): Promise<void> {
    // Every write already waited for Qdrant to apply it (`wait: true`): nothing to publish.
  }

  async status(signal?: AbortSignal): Promise<StoreStatus> {
    const exists = (await this.call('checking the collection', (client) => client.collectionExists(this.collection), signal)).exists;
    const vectors = exists
      ? (
          await this.call(
            'counting points',
            (client) => client.count(this.collection, { filter: { must_not: [NOT_CHUNK] }, exact: true }),
            signal,
          )
        ).count
      : 0;
    return { backend: this.backend, collection: this.collection, vectors };
  }

  async close(): Promise<void> {
    // The REST client keeps no state that needs releasing beyond idle keep-alive sockets, which do not hold the process open.
  }

  private async adoptExisting(meta: IndexMeta): Promise<void> {
    const stored = await this.fetchMeta();
    if (stored) {
      const differences = indexMetaDifferences(stored, meta);
      if (differences.length > 0) throw indexMismatchError(`in Qdrant collection "${this.collection}"`, differences);
      return;
    }
    // A collection docs-chat did not create: adopt it only if it is empty and shaped as we need.
    const info = await this.call('reading the collection', (client) => client.getCollection(this.collection));
    const vectors = info.config.params.vectors as Record<string, { size?: number; distance?: string }> | undefined;
    const denseConfig = vectors?.[DENSE];
    const sparseConfig = info.config.params.sparse_vectors?.[SPARSE];
    const pageConfig = info.config.params.sparse_vectors?.[PAGE];
    const points = (await this.call('counting points', (client) => client.count(this.collection, { exact: true }))).count;
    if (
      points > 0 ||
      denseConfig?.size !== meta.dimensions ||
      denseConfig.distance !== 'Cosine' ||
      sparseConfig?.modifier !== 'idf' ||
      pageConfig?.modifier !== 'idf'
    ) {
      throw new DocsChatError(
        'index_mismatch',
        `Qdrant collection "${this.collection}" was not created by docs-chat (or lost its index meta) and does not match the configured embedder.`,
        { hint: `${REBUILD_HINT} Or set QDRANT_COLLECTION to another collection name.` },
      );
    }
    await this.writeMeta(meta);
  }

  private async writeMeta(meta: IndexMeta, signal?: AbortSignal): Promise<void> {
    await this.call(
      'storing the index meta',
      (client) =>
        client.upsert(this.collection, {
          wait: true,
          points: [
            { id: META_POINT_ID, vector: {}, payload: { kind: 'meta', meta: JSON.parse(JSON.stringify(meta)) as Record<string, unknown> } },
          ],
        }),
      signal,
    );
  }

  private async fetchMeta(signal?: AbortSignal): Promise<IndexMeta | null> {
    const records = await this.call(
      'reading the index meta',
      (client) => client.retrieve(this.collection, { ids: [META_POINT_ID], with_payload: true, with_vector: false }),
      signal,
    );
    const payload = records[0]?.payload;
    if (!payload) return null;
    if (!isIndexMeta(payload.meta)) {
      throw new DocsChatError('index_corrupt', `The index meta stored in Qdrant collection "${this.collection}" is unreadable.`, {
        hint: REBUILD_HINT,
      });
    }
    return payload.meta;
  }

  private async knownDimensions(signal?: AbortSignal): Promise<number> {
    if (this.dimensions !== null) return this.dimensions;
    const meta = await this.readMeta(signal);
    if (!meta) throw indexMissingError(`in Qdrant collection "${this.collection}" at ${this.url}`);
    return meta.dimensions;
  }

  private async scrollAll(
    filter: Schemas['Filter'],
    withPayload: string[] | true,
    signal: AbortSignal | undefined,
    visit: (id: string, payload: Record<string, unknown>) => void,
  ): Promise<void> {
    let offset: Schemas['ExtendedPointId'] | undefined;
    do {
      const page = await this.call(
        'listing points',
        (client) =>
          client.scroll(this.collection, {
            filter,
            limit: PAGE_SIZE,
            with_payload: withPayload,
            with_vector: false,
            ...(offset === undefined ? {} : { offset }),
          }),
        signal,
      );
      for (const record of page.points) visit(String(record.id), record.payload ?? {});
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
  }

  /** Runs one client call: honours the caller's signal and maps every failure to a DocsChatError. */
  private async call<T>(operation: string, run: (client: QdrantClient) => Promise<T>, signal?: AbortSignal): Promise<T> {
    throwIfAborted(signal);
    const context = { url: this.url, collection: this.collection, operation, timeoutMs: this.timeoutMs, callerAborted: false };
    try {
      const pending = this.client().then(run);
      if (!signal) return await pending;
      // The client does not take a signal: stop waiting on abort and let the request finish (or time out) unobserved.
      pending.catch(() => undefined);
      return await new Promise<T>((resolve, reject) => {
        const onAbort = () => reject(new DocsChatError('aborted', 'The request was cancelled.'));
        signal.addEventListener('abort', onAbort, { once: true });
        pending.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
    } catch (error) {
      throw toStoreError(error, { ...context, callerAborted: signal?.aborted === true });
    }
  }
}

/** The filter-only scope fields of a point, read from its file key (the same reading as the embedded store's). */
function scopeFields(file: string): { versionKey: string; localeKey: string } {
  const keys = scopeKeysOf(file);
  return { versionKey: keys.version, localeKey: keys.locale };
}

function toQdrantFilter(filter: SearchFilter | undefined): Schemas['Filter'] {
  const must: Schemas['Condition'][] = [];
  const prefix = filter?.filePrefix === undefined ? '' : normaliseFilePrefix(filter.filePrefix);
  if (prefix) must.push({ key: 'filePrefixes', match: { value: prefix } });
  if (filter?.files) must.push({ key: 'file', match: { any: filter.files } });
  if (filter?.docIds) must.push({ key: 'docId', match: { any: filter.docIds } });
  // '' is the key of a plain docs folder's chunks, which every scope filter passes (as in the embedded store).
  if (filter?.versions) must.push({ key: 'versionKey', match: { any: ['', ...filter.versions] } });
  if (filter?.locales) must.push({ key: 'localeKey', match: { any: ['', ...filter.locales] } });
  return must.length > 0 ? { must, must_not: [NOT_META] } : { must_not: [NOT_META] };
}

/** Namespace of page point ids, apart from chunk ids (which are UUIDv5 of file + heading path). */
const PAGE_ID_NAMESPACE = '3b0f6f52-8c1e-4b57-a3d4-5e2f9c7a1d08';

function pagePointId(file: string): string {
  return uuidV5(file, PAGE_ID_NAMESPACE);
}

function toStoredPayload(chunk: ChunkPayload): Record<string, unknown> {
  const stored: StoredChunkPayload = { ...chunk, kind: 'chunk', filePrefixes: folderPrefixes(chunk.file), ...scopeFields(chunk.file) };
  return { ...stored };
}

function fromStoredPayload(payload: Record<string, unknown> | null | undefined): ChunkPayload {
  const {
    kind: _kind,
    filePrefixes: _filePrefixes,
    versionKey: _versionKey,
    localeKey: _localeKey,
    ...chunk
  } = (payload ?? {}) as Partial<StoredChunkPayload>;
  return chunk as ChunkPayload;
}

function rawHits(points: Array<{ id: Schemas['ExtendedPointId']; score: number }> | undefined): RankedId[] {
  return (points ?? []).map((point) => ({ id: String(point.id), score: point.score }));
}

/** Creates the Qdrant-backed vector store. */
export function createQdrantStore(options: QdrantStoreOptions): VectorStore {
  return new QdrantStore(options);
}
