/**
 * What filtering by docs version and locale adds to a search (issue 13 target:
 * at most 2 ms on the p95). Not a test: timings depend on the machine. Run from
 * the repository root:
 *   node node_modules/tsx/dist/cli.mjs packages/core/src/stores/scope-filter.bench.ts [chunks=50000] [dimensions=384] [queries=300]
 * The synthetic index is shaped like a whole site: 3 docs versions x 2 locales
 * plus a blog, keyed as `ingest --site` keys pages. The same 300 queries run
 * unfiltered and filtered to one version and locale (as the server filters a
 * reader's question), interleaved so both see the same machine load; the
 * embedded store answers each query the way the retriever asks it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStore } from './embedded-store.js';
import { makeChunk } from './vector-store.conformance.js';
import type { HybridQuery, IndexedPoint, SearchFilter } from './vector-store.js';
import { siteKeyPrefix } from '../ingest/site-layout.js';

const chunks = Number(process.argv[2] ?? 50_000);
const dimensions = Number(process.argv[3] ?? 384);
const QUERIES = Number(process.argv[4] ?? 300);
let seed = 7;
const random = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;

const SCOPES = [
  ...['current', '2.0', '1.0'].flatMap((version) => ['en', 'fr'].map((locale) => siteKeyPrefix({ instance: 'default', version, locale }))),
  siteKeyPrefix({ instance: 'blog', locale: 'en' }),
];

function randomPoint(n: number): IndexedPoint {
  const dense = new Float32Array(dimensions).map(() => random() - 0.5);
  const terms = new Set<number>();
  while (terms.size < 40) terms.add(Math.floor(random() ** 2 * 20_000));
  const indices = [...terms].sort((a, b) => a - b);
  const file = `${SCOPES[n % SCOPES.length]}folder${n % 20}/page${n % 500}.md`;
  const chunk = { ...makeChunk(n, file, n % 10), text: 'lorem '.repeat(100) };
  return {
    id: chunk.id,
    dense,
    sparse: { indices, values: indices.map(() => 1 + random()) },
    payload: { ...chunk, indexText: chunk.text },
  };
}

const percentile = (timings: number[], p: number): number => {
  const sorted = [...timings].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
};

const dataDir = await mkdtemp(join(tmpdir(), 'docs-chat-scope-bench-'));
try {
  const meta = {
    embedderProvider: 'bench',
    embedderModel: 'random',
    dimensions,
    sparseEncoder: 'bench',
    createdAt: new Date().toISOString(),
  };
  const writer = createEmbeddedStore({ dataDir });
  await writer.prepare(meta, { rebuild: true });
  for (let start = 0; start < chunks; start += 1000) {
    await writer.upsert(Array.from({ length: Math.min(1000, chunks - start) }, (_, i) => randomPoint(start + i)));
  }
  const pages = new Map<string, { file: string; docId: string; sparse: IndexedPoint['sparse'] }>();
  for (let n = 0; n < Math.min(chunks, 3500); n++) {
    const point = randomPoint(n);
    pages.set(point.payload.file, { file: point.payload.file, docId: point.payload.docId, sparse: point.sparse });
  }
  await writer.upsertPages([...pages.values()]);
  await writer.commit();
  await writer.close();

  const reader = createEmbeddedStore({ dataDir });
  await reader.status();
  const filter: SearchFilter = { versions: ['blog:', 'default:2.0'], locales: ['fr'] };
  const plain: number[] = [];
  const filtered: number[] = [];
  for (let q = 0; q < QUERIES + 20; q++) {
    const query = randomPoint(chunks + q);
    const indices = query.sparse.indices.slice(0, 6);
    const base: HybridQuery = {
      dense: query.dense,
      sparse: { indices, values: indices.map(() => 1) },
      pageSparse: { indices, values: indices.map(() => 1) },
      limit: 40,
      prefetchLimit: 40,
    };
    // Alternate which runs first, so neither always meets a warm cache.
    const order = q % 2 === 0 ? ['plain', 'filtered'] : ['filtered', 'plain'];
    for (const kind of order) {
      const started = performance.now();
      const result = await reader.hybridSearch(kind === 'plain' ? base : { ...base, filter });
      const elapsed = performance.now() - started;
      if (
        kind === 'filtered' &&
        result.fused.some((hit) => !hit.payload.file.startsWith('site:default:2.0:fr/') && !hit.payload.file.startsWith('site:blog::'))
      ) {
        throw new Error('the filter let another version or locale through');
      }
      // The first 20 rounds warm up the WebAssembly scan and the payload cache.
      if (q >= 20) (kind === 'plain' ? plain : filtered).push(elapsed);
    }
  }
  const line = (name: string, timings: number[]) =>
    `${name}: p50 ${percentile(timings, 0.5).toFixed(2)} ms, p95 ${percentile(timings, 0.95).toFixed(2)} ms`;
  console.log(`search over ${chunks} chunks x ${dimensions} (${SCOPES.length} version/locale scopes), ${QUERIES} queries each`);
  console.log(line('  unfiltered              ', plain));
  console.log(line('  filtered (version+locale)', filtered));
  console.log(`  p95 difference: ${(percentile(filtered, 0.95) - percentile(plain, 0.95)).toFixed(2)} ms (target: at most +2 ms)`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
