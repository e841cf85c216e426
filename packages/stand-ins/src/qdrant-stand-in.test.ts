import { startQdrantStandIn } from './qdrant-stand-in.js';
import type { QdrantStandIn } from './qdrant-stand-in.js';

let standIn: QdrantStandIn;

async function send(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${standIn.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

function errorText(json: Record<string, unknown>): string {
  return (json.status as { error: string }).error;
}

const point = (id: string, axis: number, sparse: { indices: number[]; values: number[] }, payload: Record<string, unknown> = {}) => ({
  id,
  vector: { dense: [axis === 0 ? 1 : 0, axis === 1 ? 1 : 0, axis === 2 ? 1 : 0], bm25: sparse },
  payload,
});

const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000003'];

beforeEach(async () => {
  standIn = await startQdrantStandIn();
  await send('PUT', '/collections/docs', {
    vectors: { dense: { size: 3, distance: 'Cosine' } },
    sparse_vectors: { bm25: { modifier: 'idf' } },
  });
  await send('PUT', '/collections/docs/points?wait=true', {
    points: [
      point(ids[0] as string, 0, { indices: [1, 2], values: [1, 1] }, { file: 'a.md' }),
      point(ids[1] as string, 1, { indices: [2], values: [1] }, { file: 'b.md' }),
      point(ids[2] as string, 2, { indices: [2, 3], values: [1, 2] }, { file: 'c.md' }),
    ],
  });
});

afterEach(async () => {
  await standIn.close();
});

describe('Qdrant stand-in', () => {
  it('answers the root and readiness endpoints as Qdrant does', async () => {
    const root = await send('GET', '/');
    expect(root.json).toMatchObject({ title: 'qdrant - vector search engine', version: '1.16.3' });
    expect((await fetch(`${standIn.url}/readyz`)).status).toBe(200);
  });

  it('wraps results in the result/status/time envelope', async () => {
    const { status, json } = await send('POST', '/collections/docs/points/count', { exact: true });
    expect(status).toBe(200);
    expect(json).toEqual({ result: { count: 3 }, status: 'ok', time: expect.any(Number) });
  });

  it('scores sparse queries with IDF from collection statistics', async () => {
    const { json } = await send('POST', '/collections/docs/points/query', { query: { indices: [3], values: [1] }, using: 'bm25' });
    const points = (json.result as { points: Array<{ id: string; score: number }> }).points;
    expect(points.map((hit) => hit.id)).toEqual([ids[2]]);
    expect(points[0]?.score).toBeCloseTo(2 * Math.log((3 - 1 + 0.5) / (1 + 0.5) + 1), 6);
  });

  it('fuses prefetches with reciprocal rank fusion, k = 2 and zero-based positions', async () => {
    const { json } = await send('POST', '/collections/docs/points/query', {
      prefetch: [
        { query: [1, 0, 0], using: 'dense', limit: 3 },
        { query: { indices: [3], values: [1] }, using: 'bm25', limit: 3 },
      ],
      query: { fusion: 'rrf' },
      limit: 3,
    });
    const points = (json.result as { points: Array<{ id: string; score: number }> }).points;
    // Dense ranks 1 first; sparse ranks only 3. Both score 1/2 at position 0; 2 is second in dense only.
    expect(points.find((hit) => hit.id === ids[0])?.score).toBeCloseTo(0.5, 6);
    expect(points.find((hit) => hit.id === ids[2])?.score).toBeCloseTo(0.5 + 1 / 4, 6);
  });

  it.each([
    ['sparse indices that repeat', { points: [point(ids[0] as string, 0, { indices: [4, 4], values: [1, 1] })] }, /unique/],
    [
      'sparse indices and values of different lengths',
      { points: [point(ids[0] as string, 0, { indices: [4], values: [1, 2] })] },
      /same length/,
    ],
    ['an unknown vector name', { points: [{ id: ids[0], vector: { embedding: [1, 0, 0] } }] }, /Not existing vector name/],
    ['a vector of the wrong size', { points: [{ id: ids[0], vector: { dense: [1, 0] } }] }, /expected dim: 3, got 2/],
    ['a point id that is neither a UUID nor an integer', { points: [{ id: 'chunk-1', vector: {} }] }, /UUID/],
  ])('rejects an upsert with %s', async (_case, body, message) => {
    const { status, json } = await send('PUT', '/collections/docs/points?wait=true', body);
    expect(status).toBe(400);
    expect(errorText(json)).toMatch(message);
  });

  it.each([
    [
      'a prefetch limit below the main limit',
      { prefetch: [{ query: [1, 0, 0], using: 'dense', limit: 2 }], query: { fusion: 'rrf' }, limit: 3 },
      /prefetch limit/,
    ],
    ['an unknown fusion', { prefetch: [{ query: [1, 0, 0], using: 'dense' }], query: { fusion: 'average' } }, /unknown variant/],
    ['fusion without prefetches', { query: { fusion: 'rrf' } }, /prefetch/],
    [
      'a malformed filter',
      { query: [1, 0, 0], using: 'dense', filter: { must: [{ field: 'file', match: { value: 'a.md' } }] } },
      /Condition/,
    ],
    ['a misspelled field', { vector: [1, 0, 0], using: 'dense' }, /unknown field `vector`/],
  ])('rejects a query with %s', async (_case, body, message) => {
    const { status, json } = await send('POST', '/collections/docs/points/query', body);
    expect(status).toBe(400);
    expect(errorText(json)).toMatch(message);
  });

  it('answers 404 with Qdrant wording for a missing collection', async () => {
    const { status, json } = await send('POST', '/collections/nope/points/count', {});
    expect(status).toBe(404);
    expect(errorText(json)).toBe("Not found: Collection `nope` doesn't exist!");
  });

  it('fails the next request on demand, then recovers', async () => {
    standIn.failNext({ status: 429, retryAfterSeconds: 2 });
    const failed = await fetch(`${standIn.url}/collections/docs/points/count`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(failed.status).toBe(429);
    expect(failed.headers.get('retry-after')).toBe('2');
    expect((await send('POST', '/collections/docs/points/count', {})).status).toBe(200);
  });

  it('pages a scroll with next_page_offset and returns only the payload fields asked for', async () => {
    const first = await send('POST', '/collections/docs/points/scroll', { limit: 2, with_payload: ['file'] });
    const page = first.json.result as { points: Array<{ id: string; payload: Record<string, unknown> }>; next_page_offset: string };
    expect(page.points.map((p) => p.id)).toEqual([ids[0], ids[1]]);
    expect(page.next_page_offset).toBe(ids[2]);
    const second = await send('POST', '/collections/docs/points/scroll', { limit: 2, offset: page.next_page_offset });
    expect((second.json.result as { next_page_offset: unknown }).next_page_offset).toBeNull();
  });

  it('refuses connections once set unreachable', async () => {
    await standIn.setUnreachable();
    await expect(fetch(`${standIn.url}/`)).rejects.toThrow();
  });
});
