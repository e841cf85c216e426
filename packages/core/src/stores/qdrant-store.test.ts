import { randomUUID } from 'node:crypto';
import { startQdrantStandIn, QDRANT_ERROR_MESSAGES } from '@docs-chat/stand-ins';
import type { QdrantStandIn } from '@docs-chat/stand-ins';
import { isDocsChatError } from '../errors.js';
import type { DocsChatError } from '../errors.js';
import { createQdrantStore } from './qdrant-store.js';
import type { QdrantStoreOptions } from './qdrant-store.js';
import { conformanceMeta, denseVector, samplePoints, sparseVector } from './vector-store.conformance.js';
import type { HybridQuery, VectorStore } from './vector-store.js';

let standIn: QdrantStandIn;
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

beforeEach(async () => {
  unhandled = [];
  standIn = await startQdrantStandIn();
});

afterEach(async () => {
  await standIn.close();
  // Give stray promises a turn to surface before checking none went unhandled.
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(unhandled).toEqual([]);
});

function storeFor(options: Partial<QdrantStoreOptions> = {}): VectorStore {
  return createQdrantStore({ url: standIn.url, collection: `adapter-${randomUUID()}`, ...options });
}

async function indexedStore(options: Partial<QdrantStoreOptions> = {}): Promise<VectorStore> {
  const store = storeFor(options);
  await store.prepare(conformanceMeta, { rebuild: true });
  await store.upsert(samplePoints());
  return store;
}

const searchQuery: HybridQuery = {
  dense: denseVector(2),
  sparse: sparseVector({ 13: 1, 14: 1 }),
  limit: 3,
  prefetchLimit: 6,
  filter: { filePrefix: 'guides' },
};

async function failureOf(promise: Promise<unknown>): Promise<DocsChatError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!isDocsChatError(error)) throw new Error(`expected a DocsChatError, got ${String(error)}`);
  return error;
}

describe('Qdrant store wire usage', () => {
  it('runs a hybrid search as one query batch: the fused query plus the raw dense and sparse lists, filtered alike', async () => {
    const store = await indexedStore();
    standIn.requests.length = 0;
    const result = await store.hybridSearch(searchQuery);
    expect(standIn.requests.map((request) => `${request.method} ${request.path.replace(/adapter-[^/]+/, 'C')}`)).toEqual([
      'POST /collections/C/points/query/batch',
    ]);
    const { searches } = standIn.requests[0]?.body as { searches: Array<Record<string, unknown>> };
    const folder = { must: [{ key: 'filePrefixes', match: { value: 'guides/' } }], must_not: [{ key: 'kind', match: { value: 'meta' } }] };
    expect(searches[0]).toMatchObject({
      query: { fusion: 'rrf' },
      limit: 3,
      prefetch: [
        { using: 'dense', limit: 6, filter: folder },
        { using: 'bm25', limit: 6, filter: folder, query: { indices: [13, 14], values: [1, 1] } },
      ],
    });
    expect(searches[1]).toMatchObject({ using: 'dense', limit: 6, filter: folder, with_payload: false });
    expect(searches[2]).toMatchObject({ using: 'bm25', limit: 6, filter: folder, with_payload: false });
    expect(result.fused.every((hit) => hit.payload.file.startsWith('guides/'))).toBe(true);
    // Filter-only payload fields never leak into the chunks handed back.
    expect(Object.keys(result.fused[0]?.payload ?? {})).not.toContain('filePrefixes');
    expect(Object.keys(result.fused[0]?.payload ?? {})).not.toContain('kind');
  });

  it('creates the collection with a cosine dense vector, IDF sparse vectors for chunks and pages, and keyword indexes on the filtered fields', async () => {
    const store = storeFor();
    await store.prepare(conformanceMeta, { rebuild: false });
    const create = standIn.requests.find((request) => request.method === 'PUT' && /^\/collections\/[^/]+$/.test(request.path));
    expect(create?.body).toEqual({
      vectors: { dense: { size: 8, distance: 'Cosine' } },
      sparse_vectors: { bm25: { modifier: 'idf' }, page: { modifier: 'idf' } },
    });
    const indexed = standIn.requests
      .filter((request) => request.path.endsWith('/index'))
      .map((request) => request.body as { field_name: string; field_schema: string });
    expect(indexed).toEqual(
      ['file', 'docId', 'filePrefixes', 'kind', 'versionKey', 'localeKey'].map((field) => ({ field_name: field, field_schema: 'keyword' })),
    );
    expect(standIn.requests.filter((request) => request.path.endsWith('/index')).every((request) => request.query.wait === 'true')).toBe(
      true,
    );
  });

  it('waits for every write to be applied and sends points in batches', async () => {
    const store = storeFor({ upsertBatchSize: 3 });
    await store.prepare(conformanceMeta, { rebuild: true });
    standIn.requests.length = 0;
    await store.upsert(samplePoints());
    await store.deleteByIds([samplePoints()[0]?.id as string]);
    const writes = standIn.requests.filter((request) => request.method === 'PUT' || request.path.endsWith('/delete'));
    expect(writes.map((request) => (request.body as { points: unknown[] }).points.length)).toEqual([3, 3, 2, 1]);
    expect(writes.every((request) => request.query.wait === 'true')).toBe(true);
  });
});

describe('Qdrant store failures', () => {
  it('says Qdrant is unreachable, naming QDRANT_URL, when nothing listens', async () => {
    const store = await indexedStore();
    await standIn.setUnreachable();
    const error = await failureOf(store.hybridSearch(searchQuery));
    expect(error.code).toBe('store_unavailable');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(standIn.url);
    expect(error.hint).toMatch(/QDRANT_URL/);
    expect((await failureOf(store.status())).code).toBe('store_unavailable');
  });

  it('reports a rate limit as retryable with the delay Qdrant asked for', async () => {
    const store = await indexedStore();
    standIn.failNext({ status: 429, message: QDRANT_ERROR_MESSAGES.rateLimited, retryAfterSeconds: 3 });
    const error = await failureOf(store.hybridSearch(searchQuery));
    expect(error.code).toBe('store_rate_limited');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(3000);
    // The next request goes through again.
    await expect(store.hybridSearch(searchQuery)).resolves.toMatchObject({ fused: expect.any(Array) });
  });

  it('reports a full disk (500 "No space left on device") as a storage quota problem with a hint', async () => {
    const store = await indexedStore();
    standIn.failNext({ status: 500, message: QDRANT_ERROR_MESSAGES.outOfDisk });
    const error = await failureOf(store.upsert(samplePoints()));
    expect(error.code).toBe('store_quota_exceeded');
    expect(error.message).toContain('No space left on device');
    expect(error.hint).toMatch(/disk space|quota/);
  });

  it('reports 507 Insufficient Storage from newer servers as a storage quota problem', async () => {
    const store = await indexedStore();
    standIn.failNext({ status: 507 });
    expect((await failureOf(store.upsert(samplePoints()))).code).toBe('store_quota_exceeded');
  });

  it("passes Qdrant's own message on when it rejects a request", async () => {
    const store = await indexedStore();
    standIn.failNext({ status: 400, message: 'Wrong input: Vector dimension error: expected dim: 8, got 9' });
    const error = await failureOf(store.upsert(samplePoints()));
    expect(error.code).toBe('store_rejected');
    expect(error.message).toContain('Vector dimension error: expected dim: 8, got 9');
    expect(error.retryable).toBe(false);
  });

  it('treats a 503 as a temporary outage', async () => {
    const store = await indexedStore();
    standIn.failNext({ status: 503, message: 'Service internal error: shard temporarily unavailable' });
    const error = await failureOf(store.getByFile('intro.md'));
    expect(error.code).toBe('store_unavailable');
    expect(error.retryable).toBe(true);
  });

  it('gives up after the configured timeout with a retryable error', async () => {
    const store = await indexedStore({ timeoutMs: 150 });
    standIn.setDelay(600);
    const error = await failureOf(store.hybridSearch(searchQuery));
    expect(error.code).toBe('store_unavailable');
    expect(error.message).toMatch(/150 ms/);
    expect(error.retryable).toBe(true);
    standIn.setDelay(0);
  });

  it('stops waiting as soon as the caller aborts', async () => {
    const store = await indexedStore();
    standIn.setDelay(400);
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 30);
    const error = await failureOf(store.hybridSearch({ ...searchQuery, signal: controller.signal }));
    expect(error.code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(350);
    standIn.setDelay(0);
    await new Promise((resolve) => setTimeout(resolve, 450));
  });

  it('says the index is missing when the collection was never created', async () => {
    const error = await failureOf(storeFor().getByFile('intro.md'));
    expect(error.code).toBe('index_missing');
    expect(error.hint).toMatch(/ingest/);
  });
});
