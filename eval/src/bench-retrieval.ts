/**
 * Retrieval benchmark (not a test): `node --import tsx eval/src/bench-retrieval.ts [--json] [--synthetic N]`
 *
 * With the offline defaults (the neural embedder, embedded store; or
 * EMBEDDING_PROVIDER from the environment) it measures:
 * - ingest of the redux corpus (../shared/corpora/redux) from scratch, then an
 *   unchanged re-run (time and embedding calls);
 * - search latency p50/p95 over the redux golden questions, query embedding
 *   included: the first time each is asked (uncached), and over 10 rounds
 *   (later rounds hit the query-embedding cache, as repeated questions do);
 * - a synthetic index of N chunks (default 50,000: generated pages of 20
 *   sections each, words drawn from the redux vocabulary) ingested through the
 *   same pipeline, then search p50/p95 and the resident memory of a fresh
 *   process that only opens the index and searches.
 * The synthetic index uses the hashing embedder: 50,000 chunks through the
 * neural model would take most of an hour on two cores.
 * Targets: redux ingest < 90 s with the neural embedder (< 10 s hashing),
 * unchanged re-run < 3 s with zero embedding calls, search p95 < 100 ms on
 * redux with the query embedding (< 20 ms hashing) and < 50 ms on 50,000
 * chunks, under 500 MB.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadCoreConfig, openRetrieval, runIngest } from '@docs-chat/core';
import { readQuestionSet } from './question-set.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHARED = path.resolve(REPO_ROOT, '../shared');
const REDUX_DIR = path.join(SHARED, 'corpora/redux');
const REDUX_QUESTIONS = path.join(SHARED, 'eval/redux.questions.json');

export interface RetrievalBenchResult {
  machine: string;
  embedder: string;
  ingest: { files: number; chunks: number; first_s: number; unchanged_s: number; unchanged_embedding_calls: number };
  search_redux_ms: { p50: number; p95: number; queries: number; uncached_p50: number; uncached_p95: number };
  synthetic: {
    chunks: number;
    ingest_s: number;
    search_ms: { p50: number; p95: number };
    rss_mb: number;
    load_ms: number;
    /** The longest the event loop stood still during the load (the heavy part runs on a worker thread). */
    load_block_ms: number;
  } | null;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0).toFixed(2));
}

async function timeSearches(
  dataDir: string,
  questions: string[],
  rounds: number,
  env: Record<string, string | undefined> = {},
): Promise<{ timings: number[]; firstRound: number[]; loadMs: number; loadBlockMs: number }> {
  const config = loadCoreConfig({ ...env, DATA_DIR: dataDir });
  // The longest the event loop stood still while the index loaded: what a server's /health and streams feel.
  const stalls = monitorEventLoopDelay({ resolution: 1 });
  stalls.enable();
  const started = performance.now();
  const retrieval = await openRetrieval(config);
  await retrieval.retriever.search('warm up the index');
  const loadMs = performance.now() - started;
  // A block that ends the load is only recorded when the loop next turns.
  await new Promise((resolve) => setTimeout(resolve, 20));
  stalls.disable();
  const loadBlockMs = stalls.max / 1e6;
  const timings: number[] = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const question of questions) {
        const t0 = performance.now();
        await retrieval.retriever.search(question);
        timings.push(performance.now() - t0);
      }
    }
  } finally {
    await retrieval.close();
  }
  return { timings, firstRound: timings.slice(0, questions.length), loadMs, loadBlockMs };
}

async function vocabulary(): Promise<string[]> {
  const words = new Map<string, number>();
  for (const entry of await fs.readdir(REDUX_DIR, { recursive: true })) {
    if (!/\.mdx?$/.test(entry)) continue;
    const text = await fs.readFile(path.join(REDUX_DIR, entry), 'utf8');
    for (const word of text.toLowerCase().match(/[a-z]{3,14}/g) ?? []) words.set(word, (words.get(word) ?? 0) + 1);
  }
  // Keep frequencies: drawing by frequency gives a realistic, skewed term distribution.
  return [...words.entries()].flatMap(([word, count]) => Array<string>(Math.min(count, 50)).fill(word));
}

async function writeSyntheticDocs(dir: string, chunks: number): Promise<void> {
  const words = await vocabulary();
  let seed = 7;
  const random = (): number => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const sentence = (length: number): string => Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(' ');
  const sectionsPerPage = 20;
  for (let page = 0; page * sectionsPerPage < chunks; page += 1) {
    const sections = Math.min(sectionsPerPage, chunks - page * sectionsPerPage);
    const body = Array.from({ length: sections }, (_, s) => `## ${sentence(4)} ${s}\n\n${sentence(60)}.\n\n${sentence(50)}.\n`).join('\n');
    const folder = path.join(dir, `area-${page % 25}`);
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, `page-${page}.md`), `# ${sentence(3)}\n\n${body}`);
  }
}

/** Opens the index in a fresh process so its memory is measured alone. */
function measureInChild(
  dataDir: string,
  questions: string[],
): Promise<{ p50: number; p95: number; rss: number; loadMs: number; loadBlockMs: number }> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(import.meta.url);
    execFile(
      process.execPath,
      ['--import', 'tsx', script, '--child', dataDir],
      { cwd: REPO_ROOT, env: { ...process.env, BENCH_QUESTIONS: JSON.stringify(questions) }, maxBuffer: 1 << 20 },
      (error, stdout) =>
        error
          ? reject(new Error(`the measuring process failed: ${error.message}`, { cause: error }))
          : resolve(JSON.parse(stdout) as { p50: number; p95: number; rss: number; loadMs: number; loadBlockMs: number }),
    );
  });
}

async function child(dataDir: string): Promise<void> {
  const questions = JSON.parse(process.env.BENCH_QUESTIONS ?? '[]') as string[];
  const { timings, loadMs, loadBlockMs } = await timeSearches(dataDir, questions, 5, HASHING);
  process.stdout.write(
    JSON.stringify({
      p50: percentile(timings, 0.5),
      p95: percentile(timings, 0.95),
      rss: process.memoryUsage().rss / 1e6,
      loadMs,
      loadBlockMs,
    }),
  );
}

/** The synthetic index's embedder (see the header). */
const HASHING = { EMBEDDING_PROVIDER: 'local' };
const defaultsEnv = (): Record<string, string | undefined> =>
  process.env.EMBEDDING_PROVIDER ? { EMBEDDING_PROVIDER: process.env.EMBEDDING_PROVIDER } : {};

export async function runRetrievalBench(options: { synthetic: number; log?: (line: string) => void }): Promise<RetrievalBenchResult> {
  const log = options.log ?? (() => undefined);
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-bench-retrieval-'));
  try {
    const dataDir = path.join(work, 'redux-data');
    const config = loadCoreConfig({ ...defaultsEnv(), DATA_DIR: dataDir });
    log(`ingesting the redux corpus with the ${config.embedder.provider} embedder…`);
    const first = await runIngest(config, { docsDir: REDUX_DIR });
    const again = await runIngest(config, { docsDir: REDUX_DIR });
    const questions = (await readQuestionSet(REDUX_QUESTIONS)).map((question) => question.question);
    log('timing searches on the redux index…');
    const redux = await timeSearches(dataDir, questions, 10, defaultsEnv());
    const result: RetrievalBenchResult = {
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${os.loadavg()[0]?.toFixed(1)}`,
      embedder: `${first.embedder.provider}/${first.embedder.model}`,
      ingest: {
        files: first.files.total,
        chunks: first.chunks.total,
        first_s: Number((first.durationMs / 1000).toFixed(2)),
        unchanged_s: Number((again.durationMs / 1000).toFixed(2)),
        unchanged_embedding_calls: again.embedding.calls,
      },
      search_redux_ms: {
        p50: percentile(redux.timings, 0.5),
        p95: percentile(redux.timings, 0.95),
        queries: redux.timings.length,
        uncached_p50: percentile(redux.firstRound, 0.5),
        uncached_p95: percentile(redux.firstRound, 0.95),
      },
      synthetic: null,
    };
    if (options.synthetic > 0) {
      const docsDir = path.join(work, 'synthetic-docs');
      const syntheticData = path.join(work, 'synthetic-data');
      log(`writing ${options.synthetic} synthetic chunks…`);
      await writeSyntheticDocs(docsDir, options.synthetic);
      log('ingesting them…');
      const report = await runIngest(loadCoreConfig({ ...HASHING, DATA_DIR: syntheticData }), { docsDir });
      log('timing searches in a fresh process…');
      const measured = await measureInChild(syntheticData, questions);
      result.synthetic = {
        chunks: report.chunks.total,
        ingest_s: Number((report.durationMs / 1000).toFixed(1)),
        search_ms: { p50: measured.p50, p95: measured.p95 },
        rss_mb: Math.round(measured.rss),
        load_ms: Math.round(measured.loadMs),
        load_block_ms: Math.round(measured.loadBlockMs),
      };
    }
    return result;
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

export function formatRetrievalBench(result: RetrievalBenchResult): string {
  const rows = [
    `| retrieval (offline defaults: ${result.embedder}) | measured | target |`,
    '| --- | --- | --- |',
    `| ingest redux (${result.ingest.files} files, ${result.ingest.chunks} chunks), first run | ${result.ingest.first_s} s | < 90 s neural, < 10 s hashing |`,
    `| ingest redux, nothing changed | ${result.ingest.unchanged_s} s, ${result.ingest.unchanged_embedding_calls} embedding calls | < 3 s, 0 calls |`,
    `| search p50 / p95, redux, each question the first time (query embedded) | ${result.search_redux_ms.uncached_p50} / ${result.search_redux_ms.uncached_p95} ms | p95 < 100 ms neural |`,
    `| search p50 / p95, redux, ${result.search_redux_ms.queries} queries (repeats hit the query-embedding cache) | ${result.search_redux_ms.p50} / ${result.search_redux_ms.p95} ms | p95 < 100 ms neural, < 20 ms hashing |`,
  ];
  if (result.synthetic) {
    rows.push(
      `| synthetic index (hashing embedder): ${result.synthetic.chunks} chunks, ingest | ${result.synthetic.ingest_s} s | |`,
      `| search p50 / p95, synthetic | ${result.synthetic.search_ms.p50} / ${result.synthetic.search_ms.p95} ms | p95 < 50 ms |`,
      `| searching process memory (RSS), synthetic | ${result.synthetic.rss_mb} MB (index load ${result.synthetic.load_ms} ms) | < 500 MB |`,
      `| longest event-loop stall while the synthetic index loads | ${result.synthetic.load_block_ms} ms | |`,
    );
  }
  return `${rows.join('\n')}\n\nMachine: ${result.machine}`;
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    await child(argv[1] as string);
  } else {
    const at = argv.indexOf('--synthetic');
    const synthetic = at === -1 ? 50_000 : Number(argv[at + 1]);
    const result = await runRetrievalBench({ synthetic, log: (line) => process.stderr.write(`${line}\n`) });
    process.stdout.write(argv.includes('--json') ? `${JSON.stringify(result, null, 2)}\n` : `${formatRetrievalBench(result)}\n`);
  }
}
