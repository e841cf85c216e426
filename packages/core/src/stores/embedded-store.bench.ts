/**
 * Benchmark of the embedded store on a synthetic index (not a test: timings
 * depend on the machine). Run from the repository root:
 *   node node_modules/tsx/dist/cli.mjs packages/core/src/stores/embedded-store.bench.ts [chunks=50000] [dimensions=384]
 * Prints commit and load times, search p50/p95 over 200 queries (half of them
 * filtered by folder) and the reader's resident memory. Targets: p95 < 20 ms at
 * ~3,000 chunks, < 50 ms at 50,000 chunks x 384 dimensions, under 500 MB.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddedStore } from './embedded-store.js';
import { makeChunk } from './vector-store.conformance.js';
import type { IndexedPoint } from './vector-store.js';

const chunks = Number(process.argv[2] ?? 50_000);
const dimensions = Number(process.argv[3] ?? 384);
let seed = 42;
const random = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;

function randomPoint(n: number): IndexedPoint {
  const dense = new Float32Array(dimensions).map(() => random() - 0.5);
  // Skewed term draw, so a few terms are common and most are rare, as in prose.
  const terms = new Set<number>();
  while (terms.size < 40) terms.add(Math.floor(random() ** 2 * 20_000));
  const indices = [...terms].sort((a, b) => a - b);
  const chunk = { ...makeChunk(n, `folder${n % 20}/page${n % 500}.md`, n % 10), text: 'lorem '.repeat(100) };
  return {
    id: chunk.id,
    dense,
    sparse: { indices, values: indices.map(() => 1 + random()) },
    payload: { ...chunk, indexText: chunk.text },
  };
}

const dataDir = await mkdtemp(join(tmpdir(), 'docs-chat-bench-'));
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
  let started = performance.now();
  await writer.commit();
  console.log(`commit: ${(performance.now() - started).toFixed(0)} ms`);
  await writer.close();

  const reader = createEmbeddedStore({ dataDir });
  started = performance.now();
  await reader.status();
  console.log(`load: ${(performance.now() - started).toFixed(0)} ms`);
  const timings: number[] = [];
  for (let q = 0; q < 200; q++) {
    const query = randomPoint(chunks + q);
    const indices = query.sparse.indices.slice(0, 6);
    started = performance.now();
    await reader.hybridSearch({
      dense: query.dense,
      sparse: { indices, values: indices.map(() => 1) },
      limit: 8,
      prefetchLimit: 40,
      ...(q % 2 === 1 ? { filter: { filePrefix: 'folder3/' } } : {}),
    });
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  const at = (p: number) => (timings[Math.min(timings.length - 1, Math.floor(p * timings.length))] as number).toFixed(1);
  console.log(
    `search over ${chunks} chunks x ${dimensions}: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms; rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB (includes the writer's garbage)`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
