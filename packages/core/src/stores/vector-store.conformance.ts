/**
 * Behaviour every VectorStore must show, run against each backend so that
 * retrieval measured on one carries over to the other. The expected numbers
 * are computed here from the formulas (RRF with k = 2 over zero-based
 * positions; BM25 IDF), not taken from either store.
 */
import type { Chunk } from '../markdown/document.js';
import { isDocsChatError } from '../errors.js';
import type { DocsChatErrorCode } from '../errors.js';
import type { HybridQuery, IndexedPoint, IndexMeta, SparseVector, VectorStore } from './vector-store.js';

export interface ConformanceSubject {
  store: VectorStore;
  /** Removes whatever the store left behind (folders, collections). */
  cleanup(): Promise<void>;
}

const DIMENSIONS = 8;

export const conformanceMeta: IndexMeta = {
  embedderProvider: 'local',
  embedderModel: 'conformance-embedder',
  dimensions: DIMENSIONS,
  sparseEncoder: 'bm25-v1',
  createdAt: '2026-11-21T00:00:00.000Z',
};

/** Deterministic UUID-shaped id for test point n. */
export function pointId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export function makeChunk(n: number, file: string, order: number, docId = file.replace(/\.mdx?$/, '')): Chunk {
  const text = `Chunk ${n} of ${file}`;
  return {
    id: pointId(n),
    file,
    docId,
    title: docId,
    heading: order === 0 ? null : `Section ${order}`,
    headingPath: order === 0 ? [docId] : [docId, `Section ${order}`],
    depth: order === 0 ? 1 : 2,
    anchor: order === 0 ? null : `section-${order}`,
    url: `/docs/${docId}${order === 0 ? '' : `#section-${order}`}`,
    pageUrl: `/docs/${docId}`,
    part: 0,
    text,
    indexText: `${docId} > ${text}`,
    tokens: 6,
    hash: `hash-${n}`,
    fileHash: `file-hash-${file}`,
    order,
  };
}

/** A unit-ish vector pointing mostly along `axis`, tilted by `tilt` towards the next axis. */
export function denseVector(axis: number, tilt = 0, dimensions = DIMENSIONS): Float32Array {
  const vector = new Float32Array(dimensions);
  vector[axis % dimensions] = 1;
  vector[(axis + 1) % dimensions] = tilt;
  return vector;
}

export function sparseVector(entries: Record<number, number>): SparseVector {
  const indices = Object.keys(entries)
    .map(Number)
    .sort((a, b) => a - b);
  return { indices, values: indices.map((index) => entries[index] as number) };
}

export function point(chunk: Chunk, dense: Float32Array, sparse: SparseVector): IndexedPoint {
  return { id: chunk.id, dense, sparse, payload: chunk };
}

/** Eight points over three folders, with distinct dense directions and overlapping sparse terms. */
export function samplePoints(): IndexedPoint[] {
  const layout: Array<[file: string, order: number, axis: number, tilt: number, terms: Record<number, number>]> = [
    ['intro.md', 0, 0, 0.1, { 11: 1.2, 12: 0.8 }],
    ['intro.md', 1, 1, 0.2, { 12: 1.1, 13: 0.9 }],
    ['guides/setup.md', 0, 2, 0.1, { 13: 1.3, 14: 0.7 }],
    ['guides/setup.md', 1, 3, 0.3, { 14: 1.0, 15: 1.0 }],
    ['guides/advanced/tuning.md', 0, 4, 0.2, { 15: 1.4, 16: 0.6 }],
    ['guides/advanced/tuning.md', 1, 5, 0.1, { 16: 1.2, 11: 0.5 }],
    ['reference/api.md', 0, 6, 0.4, { 17: 1.0, 11: 0.9 }],
    ['reference/api.md', 1, 7, 0.2, { 18: 1.5, 12: 0.4 }],
  ];
  return layout.map(([file, order, axis, tilt, terms], n) =>
    point(makeChunk(n + 1, file, order), denseVector(axis, tilt), sparseVector(terms)),
  );
}

export function describeVectorStoreConformance(name: string, makeStore: () => Promise<ConformanceSubject>): void {
  describe(`${name} (VectorStore conformance)`, () => {
    let subject: ConformanceSubject;
    let store: VectorStore;

    beforeEach(async () => {
      subject = await makeStore();
      store = subject.store;
    });

    afterEach(async () => {
      await store.close();
      await subject.cleanup();
    });

    async function indexPoints(points: IndexedPoint[]): Promise<void> {
      await store.prepare(conformanceMeta, { rebuild: true });
      await store.upsert(points);
      await store.commit();
    }

    function query(partial: Partial<HybridQuery> & Pick<HybridQuery, 'dense' | 'sparse'>): HybridQuery {
      return { limit: 5, prefetchLimit: 8, ...partial };
    }

    it('finds the exact chunk first when searching with its own vectors', async () => {
      const points = samplePoints();
      await indexPoints(points);
      const target = points[3] as IndexedPoint;
      const result = await store.hybridSearch(query({ dense: target.dense, sparse: target.sparse }));
      expect(result.fused[0]?.id).toBe(target.id);
      expect(result.fused[0]?.payload).toEqual(target.payload);
      expect(result.dense[0]?.id).toBe(target.id);
      expect(result.dense[0]?.score).toBeCloseTo(1, 5);
      expect(result.sparse[0]?.id).toBe(target.id);
    });

    it('ranks the fused list exactly as reciprocal rank fusion (k = 2, zero-based) over the raw dense and sparse lists', async () => {
      await indexPoints(samplePoints());
      const result = await store.hybridSearch(
        query({ dense: denseVector(2, 0.9), sparse: sparseVector({ 11: 1, 14: 1, 16: 1 }), limit: 4, prefetchLimit: 6 }),
      );
      expect(result.dense).toHaveLength(6);
      expect(result.sparse.length).toBeGreaterThan(2);
      const expected = new Map<string, number>();
      for (const list of [result.dense, result.sparse]) {
        list.forEach((hit, position) => expected.set(hit.id, (expected.get(hit.id) ?? 0) + 1 / (2 + position)));
      }
      expect(result.fused).toHaveLength(4);
      for (const hit of result.fused) expect(hit.score).toBeCloseTo(expected.get(hit.id) ?? Number.NaN, 5);
      const fusedScores = result.fused.map((hit) => hit.score);
      expect([...fusedScores].sort((a, b) => b - a)).toEqual(fusedScores);
      const left = [...expected.entries()].filter(([id]) => !result.fused.some((hit) => hit.id === id));
      const lowestKept = Math.min(...fusedScores);
      for (const [, score] of left) expect(score).toBeLessThanOrEqual(lowestKept + 1e-6);
      // Raw lists keep raw similarities: cosine for dense, IDF-weighted dot product for sparse.
      expect(result.dense[0]?.score).toBeLessThanOrEqual(1.000001);
      expect(result.dense.every((hit, i, all) => i === 0 || (all[i - 1] as { score: number }).score >= hit.score)).toBe(true);
    });

    it('weights sparse terms by IDF so a rare term outranks a common one', async () => {
      const common = 500;
      const rare = 900;
      const points = [1, 2, 3, 4, 5, 6].map((n) =>
        point(makeChunk(n, `page-${n}.md`, 0), denseVector(n), sparseVector(n === 6 ? { [rare]: 1 } : { [common]: 1 })),
      );
      await indexPoints(points);
      const result = await store.hybridSearch(query({ dense: denseVector(3), sparse: sparseVector({ [common]: 1, [rare]: 1 }) }));
      expect(result.sparse[0]?.id).toBe(pointId(6));
      // BM25 IDF from collection statistics: ln((N - df + 0.5) / (df + 0.5) + 1), N = 6.
      expect(result.sparse[0]?.score).toBeCloseTo(Math.log((6 - 1 + 0.5) / (1 + 0.5) + 1), 4);
      expect(result.sparse[1]?.score).toBeCloseTo(Math.log((6 - 5 + 0.5) / (5 + 0.5) + 1), 4);
      expect(result.sparse).toHaveLength(6);
    });

    it('keeps only chunks under a folder when filtering by file prefix', async () => {
      await indexPoints(samplePoints());
      const everything = { dense: denseVector(0), sparse: sparseVector({ 11: 1, 12: 1, 14: 1, 16: 1 }), limit: 8, prefetchLimit: 8 };
      const guides = await store.hybridSearch(query({ ...everything, filter: { filePrefix: 'guides/' } }));
      expect(new Set(guides.fused.map((hit) => hit.payload.file))).toEqual(new Set(['guides/setup.md', 'guides/advanced/tuning.md']));
      expect(guides.dense.map((hit) => hit.id).sort()).toEqual([pointId(3), pointId(4), pointId(5), pointId(6)]);
      const nested = await store.hybridSearch(query({ ...everything, filter: { filePrefix: 'guides/advanced' } }));
      expect(nested.fused.map((hit) => hit.payload.file)).toEqual(['guides/advanced/tuning.md', 'guides/advanced/tuning.md']);
      // A prefix names a folder, not the start of a name.
      const partial = await store.hybridSearch(query({ ...everything, filter: { filePrefix: 'guid' } }));
      expect(partial).toEqual({ fused: [], dense: [], sparse: [], pages: [] });
    });

    it('keeps only the listed files or doc ids when filtering by them', async () => {
      await indexPoints(samplePoints());
      const everything = { dense: denseVector(0), sparse: sparseVector({ 11: 1, 12: 1 }), limit: 8, prefetchLimit: 8 };
      const byFile = await store.hybridSearch(query({ ...everything, filter: { files: ['intro.md', 'reference/api.md'] } }));
      expect(new Set(byFile.dense.map((hit) => hit.id))).toEqual(new Set([pointId(1), pointId(2), pointId(7), pointId(8)]));
      const byDoc = await store.hybridSearch(query({ ...everything, filter: { docIds: ['guides/setup'] } }));
      expect(new Set(byDoc.fused.map((hit) => hit.payload.docId))).toEqual(new Set(['guides/setup']));
      const combined = await store.hybridSearch(
        query({ ...everything, filter: { filePrefix: 'guides/', docIds: ['guides/setup', 'intro'] } }),
      );
      expect(new Set(combined.dense.map((hit) => hit.id))).toEqual(new Set([pointId(3), pointId(4)]));
      const none = await store.hybridSearch(query({ ...everything, filter: { files: [] } }));
      expect(none).toEqual({ fused: [], dense: [], sparse: [], pages: [] });
    });

    it('keeps only the asked versions and locales of a site, while unscoped chunks and pages always pass', async () => {
      const layout: Array<[file: string, axis: number]> = [
        ['site:default:2.0:en/intro.md', 0],
        ['site:default:1.0:en/intro.md', 1],
        ['site:default:2.0:fr/intro.md', 2],
        ['site:community:current:en/rules.md', 3],
        ['site:blog::en/2024-01-01-launch.md', 4],
        ['plain.md', 5],
      ];
      const points = layout.map(([file, axis], n) =>
        point(makeChunk(n + 1, file, 0, `doc-${n}`), denseVector(axis), sparseVector({ 11: 1 })),
      );
      await store.prepare(conformanceMeta, { rebuild: true });
      await store.upsert(points);
      await store.upsertPages(layout.map(([file], n) => ({ file, docId: `doc-${n}`, sparse: sparseVector({ 11: 1 }) })));
      await store.commit();
      const everything = {
        dense: denseVector(0),
        sparse: sparseVector({ 11: 1 }),
        pageSparse: sparseVector({ 11: 1 }),
        limit: 8,
        prefetchLimit: 8,
      };
      const filesOf = (hits: Array<{ payload: Chunk }>): string[] => hits.map((hit) => hit.payload.file).sort();
      const v2en = await store.hybridSearch(
        query({ ...everything, filter: { versions: ['default:2.0', 'community:current', 'blog:'], locales: ['en'] } }),
      );
      const expected = [
        'plain.md',
        'site:blog::en/2024-01-01-launch.md',
        'site:community:current:en/rules.md',
        'site:default:2.0:en/intro.md',
      ];
      expect(filesOf(v2en.fused)).toEqual(expected);
      expect(v2en.dense).toHaveLength(4);
      expect(v2en.pages.map((page) => page.file).sort()).toEqual(expected);
      const v1 = await store.hybridSearch(query({ ...everything, filter: { versions: ['default:1.0'] } }));
      expect(filesOf(v1.fused)).toEqual(['plain.md', 'site:default:1.0:en/intro.md']);
      const fr = await store.hybridSearch(query({ ...everything, filter: { locales: ['fr'] } }));
      expect(filesOf(fr.fused)).toEqual(['plain.md', 'site:default:2.0:fr/intro.md']);
    });

    it('forgets deleted chunks in searches and in the file listing', async () => {
      const points = samplePoints();
      await indexPoints(points);
      await store.deleteByIds([pointId(1), pointId(2), pointId(4)]);
      await store.commit();
      const files = await store.listFiles();
      expect(files).toEqual([
        { file: 'guides/advanced/tuning.md', fileHash: 'file-hash-guides/advanced/tuning.md', chunkIds: [pointId(5), pointId(6)] },
        { file: 'guides/setup.md', fileHash: 'file-hash-guides/setup.md', chunkIds: [pointId(3)] },
        { file: 'reference/api.md', fileHash: 'file-hash-reference/api.md', chunkIds: [pointId(7), pointId(8)] },
      ]);
      const result = await store.hybridSearch(
        query({ dense: (points[0] as IndexedPoint).dense, sparse: sparseVector({ 12: 1 }), limit: 8, prefetchLimit: 8 }),
      );
      const seen = new Set([...result.fused, ...result.dense, ...result.sparse].map((hit) => hit.id));
      for (const gone of [pointId(1), pointId(2), pointId(4)]) expect(seen.has(gone)).toBe(false);
      expect((await store.status()).vectors).toBe(5);
    });

    it('replaces a chunk when the same id is upserted again', async () => {
      const points = samplePoints();
      await indexPoints(points);
      const changed = { ...(points[0] as IndexedPoint).payload, text: 'Rewritten intro', fileHash: 'new-hash' };
      await store.upsert([point(changed, denseVector(6, 0.05), sparseVector({ 77: 2 }))]);
      await store.commit();
      expect((await store.status()).vectors).toBe(8);
      const result = await store.hybridSearch(query({ dense: denseVector(6, 0.05), sparse: sparseVector({ 77: 1 }) }));
      expect(result.fused[0]?.id).toBe(pointId(1));
      expect(result.fused[0]?.payload.text).toBe('Rewritten intro');
      expect(result.sparse.map((hit) => hit.id)).toEqual([pointId(1)]);
      const old = await store.hybridSearch(query({ dense: denseVector(0), sparse: sparseVector({ 11: 1 }) }));
      expect(old.sparse.map((hit) => hit.id)).not.toContain(pointId(1));
    });

    it('refuses to reuse an index built with another embedder or dimension and points to --rebuild', async () => {
      await indexPoints(samplePoints());
      for (const different of [
        { ...conformanceMeta, embedderModel: 'another-model' },
        { ...conformanceMeta, dimensions: DIMENSIONS * 2 },
        { ...conformanceMeta, sparseEncoder: 'bm25-v2' },
      ]) {
        const error = await store.prepare(different, { rebuild: false }).then(
          () => null,
          (caught: unknown) => caught,
        );
        expect(errorCode(error)).toBe('index_mismatch');
        expect(isDocsChatError(error) && error.hint).toMatch(/--rebuild/);
      }
      await expect(store.prepare({ ...conformanceMeta, createdAt: 'later' }, { rebuild: false })).resolves.toBeUndefined();
      expect((await store.status()).vectors).toBe(8);
    });

    it('starts from an empty index when rebuilding, even with another embedder', async () => {
      await indexPoints(samplePoints());
      const other = { ...conformanceMeta, embedderModel: 'another-model', dimensions: 4 };
      await store.prepare(other, { rebuild: true });
      await store.commit();
      expect(await store.readMeta()).toMatchObject({ embedderModel: 'another-model', dimensions: 4 });
      expect((await store.status()).vectors).toBe(0);
      expect(await store.listFiles()).toEqual([]);
    });

    it('reads back the index meta it was prepared with', async () => {
      expect(await store.readMeta()).toBeNull();
      await indexPoints([]);
      expect(await store.readMeta()).toEqual(conformanceMeta);
    });

    it('returns chunks by id in the order asked, leaving out unknown ids', async () => {
      await indexPoints(samplePoints());
      const chunks = await store.getByIds([pointId(7), pointId(99), pointId(2), pointId(5)]);
      expect(chunks.map((chunk) => chunk.id)).toEqual([pointId(7), pointId(2), pointId(5)]);
      expect(chunks[0]).toEqual(makeChunk(7, 'reference/api.md', 0));
    });

    it('returns the chunks of a file in document order', async () => {
      const chunks = [3, 0, 4, 1, 2].map((order) => makeChunk(20 + order, 'long-page.md', order));
      await indexPoints(chunks.map((chunk) => point(chunk, denseVector(chunk.order), sparseVector({ [chunk.order + 1]: 1 }))));
      const ordered = await store.getByFile('long-page.md');
      expect(ordered.map((chunk) => chunk.order)).toEqual([0, 1, 2, 3, 4]);
      expect(await store.getByFile('missing.md')).toEqual([]);
    });

    it('counts only chunks in its status, never its own bookkeeping', async () => {
      await indexPoints(samplePoints().slice(0, 5));
      expect(await store.status()).toMatchObject({ backend: store.backend, collection: store.collection, vectors: 5 });
      expect((await store.listFiles()).flatMap((file) => file.chunkIds)).toHaveLength(5);
    });

    it('ranks whole pages by page-level BM25 with IDF over pages, honouring filters, and never lists them as chunks', async () => {
      await indexPoints(samplePoints());
      const common = 300;
      const rare = 301;
      await store.upsertPages([
        { file: 'intro.md', docId: 'intro', sparse: sparseVector({ [common]: 1 }) },
        { file: 'guides/setup.md', docId: 'guides/setup', sparse: sparseVector({ [common]: 0.5, [rare]: 1 }) },
        { file: 'reference/api.md', docId: 'reference/api', sparse: sparseVector({ [common]: 1.5 }) },
      ]);
      await store.commit();
      const pageQuery = { dense: denseVector(0), sparse: sparseVector({ 11: 1 }), pageSparse: sparseVector({ [common]: 1, [rare]: 1 }) };
      const result = await store.hybridSearch(query(pageQuery));
      const idf = (df: number) => Math.log((3 - df + 0.5) / (df + 0.5) + 1);
      expect(result.pages.map((page) => page.file)).toEqual(['guides/setup.md', 'reference/api.md', 'intro.md']);
      expect(result.pages[0]?.score).toBeCloseTo(0.5 * idf(3) + idf(1), 4);
      expect(result.pages[1]?.score).toBeCloseTo(1.5 * idf(3), 4);
      const filtered = await store.hybridSearch(query({ ...pageQuery, filter: { filePrefix: 'guides/' } }));
      expect(filtered.pages.map((page) => page.file)).toEqual(['guides/setup.md']);
      // Pages are bookkeeping beside the chunks: chunk searches, listings and counts never see them.
      expect(result.fused.every((hit) => hit.payload.file !== undefined && hit.id !== undefined)).toBe(true);
      expect((await store.status()).vectors).toBe(8);
      expect((await store.listFiles()).flatMap((file) => file.chunkIds)).toHaveLength(8);
      expect(await store.getByFile('guides/setup.md')).toHaveLength(2);

      await store.deletePages(['guides/setup.md', 'missing.md']);
      await store.commit();
      const after = await store.hybridSearch(query(pageQuery));
      expect(after.pages.map((page) => page.file)).toEqual(['reference/api.md', 'intro.md']);
      expect((await store.hybridSearch(query({ dense: denseVector(0), sparse: sparseVector({ 11: 1 }) }))).pages).toEqual([]);
    });

    it('keeps corpus statistics in the index meta and returns them with it', async () => {
      await indexPoints(samplePoints());
      await store.updateMetaExtra({ termStats: { chunks: 8, df: { store: 3 } } });
      await store.commit();
      expect(await store.readMeta()).toEqual({ ...conformanceMeta, extra: { termStats: { chunks: 8, df: { store: 3 } } } });
      // Statistics never make an index look built by another embedder.
      await expect(store.prepare(conformanceMeta, { rebuild: false })).resolves.toBeUndefined();
    });

    it('returns empty lists when searching an empty index', async () => {
      await indexPoints([]);
      const result = await store.hybridSearch(query({ dense: denseVector(1), sparse: sparseVector({ 11: 1 }) }));
      expect(result).toEqual({ fused: [], dense: [], sparse: [], pages: [] });
    });

    it('says the index is missing when searching before any ingest', async () => {
      const error = await store.hybridSearch(query({ dense: denseVector(1), sparse: sparseVector({ 11: 1 }) })).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(errorCode(error)).toBe('index_missing');
    });

    it('rejects a query whose prefetch limit is below its result limit', async () => {
      await indexPoints(samplePoints());
      const error = await store
        .hybridSearch(query({ dense: denseVector(1), sparse: sparseVector({ 11: 1 }), limit: 5, prefetchLimit: 3 }))
        .then(
          () => null,
          (caught: unknown) => caught,
        );
      expect(errorCode(error)).toBe('query_invalid');
    });
  });
}

export function errorCode(error: unknown): DocsChatErrorCode | 'not-a-docs-chat-error' {
  return isDocsChatError(error) ? error.code : 'not-a-docs-chat-error';
}
