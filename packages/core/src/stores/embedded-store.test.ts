import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isDocsChatError } from '../errors.js';
import { createEmbeddedStore } from './embedded-store.js';
import {
  conformanceMeta,
  denseVector,
  errorCode,
  makeChunk,
  point,
  pointId,
  samplePoints,
  sparseVector,
} from './vector-store.conformance.js';
import type { HybridQuery, VectorStore } from './vector-store.js';

const here = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = join(here, '../../../..');
const run = promisify(execFile);

let dataDir: string;
const opened: VectorStore[] = [];

function openStore(): VectorStore {
  const store = createEmbeddedStore({ dataDir });
  opened.push(store);
  return store;
}

function indexDirectory(): string {
  return join(dataDir, 'index', 'docusaurus-book');
}

async function buildIndex(): Promise<void> {
  const writer = openStore();
  await writer.prepare(conformanceMeta, { rebuild: true });
  await writer.upsert(samplePoints());
  await writer.commit();
}

async function dataFile(prefix: string): Promise<string> {
  const name = (await readdir(indexDirectory())).find((entry) => entry.startsWith(prefix));
  if (!name) throw new Error(`no ${prefix} file in the index`);
  return join(indexDirectory(), name);
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (error: unknown) => error,
  );
}

const anyQuery: HybridQuery = { dense: denseVector(0), sparse: sparseVector({ 11: 1 }), limit: 3, prefetchLimit: 5 };

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'docs-chat-embedded-store-'));
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  await rm(dataDir, { recursive: true, force: true });
});

describe('embedded store on disk', () => {
  it('reports a truncated vector file as a corrupt index with the rebuild hint instead of serving nothing', async () => {
    await buildIndex();
    const vectors = await dataFile('vectors-');
    await truncate(vectors, 17);
    const error = await failureOf(openStore().hybridSearch(anyQuery));
    expect(errorCode(error)).toBe('index_corrupt');
    expect(isDocsChatError(error) && error.message).toMatch(/truncated/);
    expect(isDocsChatError(error) && error.hint).toMatch(/--rebuild/);
  });

  it('reports a payload file whose bytes changed as a corrupt index', async () => {
    await buildIndex();
    const points = await dataFile('payloads-');
    const text = await readFile(points, 'utf8');
    await writeFile(points, text.replace('Chunk 1 of', 'Chunk 9 of'));
    const error = await failureOf(openStore().readMeta());
    expect(errorCode(error)).toBe('index_corrupt');
    expect(isDocsChatError(error) && error.message).toMatch(/checksum/);
  });

  it('reports a page-vector file whose bytes changed as a corrupt index', async () => {
    await buildIndex();
    const pages = await dataFile('pages-');
    const bytes = await readFile(pages);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0xff;
    await writeFile(pages, bytes);
    const error = await failureOf(openStore().hybridSearch(anyQuery));
    expect(errorCode(error)).toBe('index_corrupt');
    expect(isDocsChatError(error) && error.message).toMatch(/pages-.*checksum/);
  });

  it('reports postings that name a point the index does not hold, even when their checksum was rewritten to match', async () => {
    await buildIndex();
    const manifestPath = join(indexDirectory(), 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
      count: number;
      terms: number;
      nonZeros: number;
      files: { postings: { name: string; sha256: string } };
    };
    const postings = join(indexDirectory(), manifest.files.postings.name);
    const bytes = await readFile(postings);
    // The last slot of the postings (uint32 terms[T], offsets[T + 1], slots[nnz], values[nnz]) points past the end.
    bytes.writeUInt32LE(manifest.count + 3, manifest.terms * 8 + 4 + (manifest.nonZeros - 1) * 4);
    await writeFile(postings, bytes);
    manifest.files.postings.sha256 = createHash('sha256').update(bytes).digest('hex');
    await writeFile(manifestPath, JSON.stringify(manifest));
    const error = await failureOf(openStore().status());
    expect(errorCode(error)).toBe('index_corrupt');
    expect(isDocsChatError(error) && error.message).toMatch(/names a point that does not exist/);
  });

  it('ranks pages after a reload exactly as the process that wrote them did', async () => {
    const writer = openStore();
    await writer.prepare(conformanceMeta, { rebuild: true });
    await writer.upsert(samplePoints());
    let seed = 99;
    const random = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    // Enough pages and terms that the reader's page postings (worked out on the loading thread) could go wrong.
    const pages = Array.from({ length: 60 }, (_, n) => {
      const entries: Record<number, number> = {};
      for (let k = 0; k < 40; k++) entries[(random() >>> 8) % 500] = 1 + ((random() >>> 8) % 7);
      return { file: `pages/page-${n}.md`, docId: `pages/page-${n}`, sparse: sparseVector(entries) };
    });
    await writer.upsertPages(pages);
    await writer.commit();
    const queryTerms = Object.fromEntries(Array.from({ length: 30 }, (_, k) => [k * 16 + 3, 1 + (k % 3)]));
    const pageQuery: HybridQuery = { ...anyQuery, pageSparse: sparseVector(queryTerms), prefetchLimit: 20 };
    const written = await writer.hybridSearch(pageQuery);
    const reloaded = await openStore().hybridSearch(pageQuery);
    expect(written.pages.length).toBe(20);
    expect(reloaded.pages).toEqual(written.pages);
  });

  it('reports a manifest cut off mid-write as a corrupt index, and a rebuild still starts over', async () => {
    await cp(join(here, '__fixtures__/manifest-not-json'), dataDir, { recursive: true });
    const store = openStore();
    const error = await failureOf(store.status());
    expect(errorCode(error)).toBe('index_corrupt');
    expect(isDocsChatError(error) && error.hint).toMatch(/--rebuild/);
    await store.prepare(conformanceMeta, { rebuild: true });
    await store.upsert(samplePoints().slice(0, 2));
    await store.commit();
    expect((await openStore().status()).vectors).toBe(2);
  });

  it('keeps serving the last committed snapshot while a writer has uncommitted changes', async () => {
    await buildIndex();
    const writer = openStore();
    await writer.prepare(conformanceMeta, { rebuild: true });
    await writer.upsert([point(makeChunk(40, 'new.md', 0), denseVector(1), sparseVector({ 1: 1 }))]);
    // The writer sees its own work; a fresh reader (another process) still gets the old index.
    expect((await writer.status()).vectors).toBe(1);
    const reader = openStore();
    expect((await reader.status()).vectors).toBe(8);
    expect(await reader.getByIds([pointId(40)])).toEqual([]);
    // Killed before commit: nothing of the rebuild reaches the disk.
    await writer.close();
    expect((await openStore().listFiles()).map((file) => file.file)).toContain('intro.md');
  });

  it('picks up a snapshot committed by another process without a restart', async () => {
    await buildIndex();
    const server = openStore();
    expect((await server.status()).vectors).toBe(8);
    await run(process.execPath, [
      join(repositoryRoot, 'node_modules/tsx/dist/cli.mjs'),
      join(here, '__fixtures__/commit-in-another-process.ts'),
      dataDir,
      '77',
    ]);
    const result = await server.hybridSearch({ ...anyQuery, sparse: sparseVector({ 4242: 1 }) });
    expect(result.sparse.map((hit) => hit.id)).toEqual([pointId(77)]);
    expect((await server.status()).vectors).toBe(9);
  });

  it("updates an index it opened and searched, keeping every untouched point's sparse vector, as a store that wrote all points itself", async () => {
    await buildIndex();
    // A process that searched first holds the sparse vectors only as postings; its first write must rebuild them exactly.
    const server = openStore();
    const termQuery: HybridQuery = {
      dense: denseVector(0),
      sparse: sparseVector({ 11: 1, 12: 1, 13: 1, 14: 1, 15: 1, 16: 1, 17: 1, 18: 1 }),
      limit: 8,
      prefetchLimit: 8,
    };
    await server.hybridSearch(termQuery);
    const extra = point(makeChunk(40, 'guides/extra.md', 0), denseVector(2, 0.5), sparseVector({ 12: 0.7, 19: 2 }));
    await server.prepare(conformanceMeta, { rebuild: false });
    await server.deleteByIds([pointId(2)]);
    await server.upsert([extra]);
    await server.commit();

    const reference = openStore();
    await reference.prepare(conformanceMeta, { rebuild: true });
    await reference.upsert([...samplePoints().filter((sample) => sample.id !== pointId(2)), extra]);
    const expected = await reference.hybridSearch({
      ...termQuery,
      sparse: sparseVector({ 11: 1, 12: 1, 13: 1, 14: 1, 15: 1, 16: 1, 17: 1, 18: 1, 19: 1 }),
    });
    const reopened = await openStore().hybridSearch({
      ...termQuery,
      sparse: sparseVector({ 11: 1, 12: 1, 13: 1, 14: 1, 15: 1, 16: 1, 17: 1, 18: 1, 19: 1 }),
    });
    expect(reopened.sparse).toEqual(expected.sparse);
    expect(reopened.sparse.map((hit) => hit.id)).toContain(extra.id);
    expect(reopened.sparse.map((hit) => hit.id)).not.toContain(pointId(2));
    expect(reopened.sparse).toHaveLength(8);
  });

  it('leaves no partial files behind after a commit and reopens with identical results', async () => {
    await buildIndex();
    const entries = (await readdir(indexDirectory())).sort();
    // The manifest and one each of vectors, postings, points, payloads and pages.
    expect(entries.map((entry) => entry.replace(/-[0-9a-f-]{36}\./, '.'))).toEqual([
      'manifest.json',
      'pages.bin',
      'payloads.jsonl',
      'points.json',
      'postings.bin',
      'vectors.f32',
    ]);
    expect(entries.filter((entry) => entry.endsWith('.tmp'))).toEqual([]);
    const first = await openStore().hybridSearch(anyQuery);
    const second = await openStore().hybridSearch(anyQuery);
    expect(second).toEqual(first);
    expect(first.fused.length).toBe(3);
  });

  it('removes the partial files of a writer killed mid-commit at the next commit, keeping those of a live writer', async () => {
    await buildIndex();
    const before = await openStore().hybridSearch(anyQuery);
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
    const orphan = `.payloads-11111111-2222-4333-8444-555555555555.jsonl.${deadPid}.0b7f5c7e-1111-4a2b-9c3d-123456789abc.tmp`;
    const live = `.vectors-11111111-2222-4333-8444-555555555555.f32.${process.ppid}.0b7f5c7e-1111-4a2b-9c3d-123456789abd.tmp`;
    await writeFile(join(indexDirectory(), orphan), 'partial');
    await writeFile(join(indexDirectory(), live), 'partial');
    const writer = openStore();
    await writer.prepare(conformanceMeta, { rebuild: false });
    await writer.upsert(samplePoints().slice(0, 1));
    await writer.commit();
    const entries = await readdir(indexDirectory());
    expect(entries).not.toContain(orphan);
    expect(entries).toContain(live);
    expect(await openStore().hybridSearch(anyQuery)).toEqual(before);
  });

  it('removes them when the index is next opened, even by a run with nothing to commit', async () => {
    await buildIndex();
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
    const orphan = `.payloads-11111111-2222-4333-8444-555555555555.jsonl.${deadPid}.0b7f5c7e-1111-4a2b-9c3d-123456789abe.tmp`;
    const live = `.vectors-11111111-2222-4333-8444-555555555555.f32.${process.ppid}.0b7f5c7e-1111-4a2b-9c3d-123456789abf.tmp`;
    await writeFile(join(indexDirectory(), orphan), 'partial');
    await writeFile(join(indexDirectory(), live), 'partial');
    expect((await openStore().hybridSearch(anyQuery)).fused.length).toBeGreaterThan(0);
    const entries = await readdir(indexDirectory());
    expect(entries).not.toContain(orphan);
    expect(entries).toContain(live);
  });
});
