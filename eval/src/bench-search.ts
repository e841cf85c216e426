/**
 * Search benchmark (not a test): `node --import tsx eval/src/bench-search.ts [--json] [--skip-server] [--no-cache]`
 *
 * 1. The in-browser engine in Chromium (Debian's, through playwright-core), on
 *    the static index of the redux corpus (86 pages, cut by the server's chunker
 *    into about 1,300 sections) and of docs-site's own docs:
 *    - index size, gzip level 9 (what a static host serves);
 *    - index ready: from the downloaded file's text to a searchable engine
 *      (JSON parse, shape check, inverted index), in five fresh pages;
 *    - query latency: every prefix of every redux dev question, typed key by
 *      key (two characters and up), each search with its snippets, as the
 *      search box runs it.
 *    The engine is the plugin's own code (src/static-search), bundled for the
 *    page with esbuild as the site's bundler would.
 * 2. The server's `GET /search` as readers type: `docs-chat serve` on the
 *    redux index (offline embedder, embedded store), 1 then 50 typists, each
 *    typing redux questions at 150 ± 50 ms a key, a second's pause between
 *    questions, and sending a search as the search box does: once the query
 *    has two characters, 120 ms after a key when no other key followed (its
 *    debounce), for 20 s, from 127.0.0.1 only (rate limit raised: every typist
 *    shares one address).
 * Targets (issue 12): redux index <= 500 KB gzip, query p95 <= 15 ms, index
 * ready <= 300 ms after download; GET /search p95 <= 30 ms at 50 typists.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { loadCoreConfig, runIngest } from '@docs-chat/core';
import { launchChromium } from '../../docs-site/e2e/support/chromium.js';
import { loadMarkdownCorpus } from './engines/markdown-corpus.js';
import { readQuestionSet } from './question-set.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDUX_DIR = path.resolve(REPO_ROOT, '../shared/corpora/redux');
const REDUX_QUESTIONS = path.resolve(REPO_ROOT, '../shared/eval/redux.questions.json');
const DOCS_SITE_DIR = path.join(REPO_ROOT, 'docs-site/docs');
const STATIC_SEARCH_DIR = path.join(REPO_ROOT, 'packages/docusaurus-plugin/src/static-search');

const TARGETS = { reduxIndexGzipKb: 500, queryP95Ms: 15, indexReadyMs: 300, serverP95Ms: 30 };
const FRESH_PAGES = 5;
const TYPING_SECONDS = 20;
const KEY_INTERVAL_MS = 150;
/** The search box's debounce (packages/docusaurus-plugin/src/search-client/use-search.ts). */
const DEBOUNCE_MS = 120;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

/** The plugin's engine as one script for a page: `window.DocsChatSearch.{createSearchEngine, parseSearchIndex}`. */
async function bundleEngine(): Promise<string> {
  const result = await build({
    stdin: {
      contents: "export { createSearchEngine } from './search-engine.ts';\nexport { parseSearchIndex } from './index-format.ts';\n",
      resolveDir: STATIC_SEARCH_DIR,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'DocsChatSearch',
    minify: true,
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** Every prefix (two characters and up) of each question: what a reader typing it searches for. */
function typedPrefixes(questions: string[]): string[] {
  return questions.flatMap((question) =>
    Array.from({ length: Math.max(0, question.length - 1) }, (_, index) => question.slice(0, index + 2)),
  );
}

export interface StaticEngineFigures {
  corpus: string;
  pages: number;
  sections: number;
  indexBytes: number;
  indexGzipBytes: number;
  indexReadyMs: number[];
  queries: number;
  queryP50Ms: number;
  queryP95Ms: number;
  queryMaxMs: number;
}

async function measureStaticEngine(corpus: string, docsDir: string, queries: string[], engineScript: string): Promise<StaticEngineFigures> {
  const { index } = await loadMarkdownCorpus(docsDir);
  const indexText = JSON.stringify(index);
  const chromium = await launchChromium();
  const indexReadyMs: number[] = [];
  let timings: number[] = [];
  try {
    for (let run = 0; run < FRESH_PAGES; run += 1) {
      const page = await chromium.context.newPage();
      await page.route('http://bench.invalid/**', (route) => {
        const url = route.request().url();
        if (url.endsWith('/index.json')) return route.fulfill({ status: 200, contentType: 'application/json', body: indexText });
        return route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: `<!doctype html><meta charset="utf-8"><script>${engineScript}</script>`,
        });
      });
      await page.goto('http://bench.invalid/');
      const measured = await page.evaluate(
        async ({ queries: typed, timeQueries }) => {
          const api = (
            globalThis as unknown as {
              DocsChatSearch: {
                createSearchEngine(file: unknown): { search(query: string, options?: { limit?: number }): unknown };
                parseSearchIndex(value: unknown): unknown;
              };
            }
          ).DocsChatSearch;
          const text = await (await fetch('/index.json')).text();
          const started = performance.now();
          const engine = api.createSearchEngine(api.parseSearchIndex(JSON.parse(text)));
          const readyMs = performance.now() - started;
          const times: number[] = [];
          if (timeQueries) {
            for (const query of typed) {
              const before = performance.now();
              engine.search(query, { limit: 10 });
              times.push(performance.now() - before);
            }
          }
          return { readyMs, times };
        },
        { queries, timeQueries: run === 0 },
      );
      indexReadyMs.push(round(measured.readyMs));
      if (run === 0) timings = measured.times;
      await page.close();
    }
  } finally {
    await chromium.close();
  }
  return {
    corpus,
    pages: index.pages.length,
    sections: index.sections.length,
    indexBytes: Buffer.byteLength(indexText),
    indexGzipBytes: gzipSync(indexText, { level: 9 }).length,
    indexReadyMs,
    queries: timings.length,
    queryP50Ms: round(percentile(timings, 0.5), 2),
    queryP95Ms: round(percentile(timings, 0.95), 2),
    queryMaxMs: round(Math.max(...timings), 2),
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** CPU time (user + system) of a process so far, in ms, from Linux /proc; NaN when unreadable. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state; utime and stime are 14 and 15, in 1/100 s.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

export interface TypingPhase {
  typists: number;
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  serverCpuMsPerRequest: number;
  loadAverage: number;
}

function search(agent: Agent, url: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent, headers: { accept: 'application/json' } }, (response) => {
      response.resume();
      response.on('end', () =>
        response.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`HTTP ${response.statusCode}`)),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

async function typingPhase(serverUrl: string, serverPid: number, typists: number, questions: string[]): Promise<TypingPhase> {
  const agent = new Agent({ keepAlive: true, maxSockets: typists * 2 });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + TYPING_SECONDS * 1000;
  const cpuBefore = processCpuMs(serverPid);
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  const typist = async (offset: number): Promise<void> => {
    // Start at different moments, as readers do.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * KEY_INTERVAL_MS * 4));
    for (let turn = 0; performance.now() < deadline; turn += 1) {
      const question = questions[(offset + turn) % questions.length] as string;
      for (let length = 1; length <= question.length && performance.now() < deadline; length += 1) {
        const query = question.slice(0, length).trim();
        // The gap to the next key (or the pause after the question): the box searches only when it exceeds the debounce.
        const gap = length === question.length ? 1000 : KEY_INTERVAL_MS - 50 + Math.random() * 100;
        if (query.length >= 2 && gap > DEBOUNCE_MS) {
          await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS));
          inFlight.push(
            search(agent, `${serverUrl}/search?q=${encodeURIComponent(query)}&k=10`).then(
              (ms) => void latencies.push(ms),
              () => void (errors += 1),
            ),
          );
          await new Promise((resolve) => setTimeout(resolve, gap - DEBOUNCE_MS));
        } else {
          await new Promise((resolve) => setTimeout(resolve, gap));
        }
      }
    }
  };
  await Promise.all(Array.from({ length: typists }, (_, index) => typist(index)));
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  const requests = latencies.length + errors;
  return {
    typists,
    requests,
    errors,
    requestsPerSecond: round(requests / elapsed),
    p50Ms: round(percentile(latencies, 0.5)),
    p95Ms: round(percentile(latencies, 0.95)),
    maxMs: round(Math.max(...latencies)),
    serverCpuMsPerRequest: round((processCpuMs(serverPid) - cpuBefore) / Math.max(1, requests), 2),
    loadAverage: round(loadavg()[0] ?? Number.NaN, 2),
  };
}

async function measureServerTyping(questions: string[], noCache: boolean, log: (line: string) => void): Promise<TypingPhase[]> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-bench-search-'));
  let child: ChildProcess | undefined;
  try {
    const coreEnv = { DATA_DIR: dataDir, DOCS_DIR: REDUX_DIR, EMBEDDING_PROVIDER: 'local', VECTOR_STORE: 'embedded' };
    const report = await runIngest(loadCoreConfig(coreEnv), {});
    log(
      `Server: ingested ${report.files.total} files / ${report.chunks.total} chunks of the redux corpus (local embedder, embedded store); retrieval cache ${noCache ? 'off' : 'on'}.`,
    );
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const logFd = openSync(path.join(dataDir, 'server.log'), 'a');
    child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'packages/server/src/cli.ts'), 'serve'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...coreEnv,
        PORT: String(port),
        HOST: '127.0.0.1',
        // Every typist comes from 127.0.0.1: one reader's budget would stop the benchmark.
        RATE_LIMIT_MAX: '1000000',
        LOG_LEVEL: 'info',
        ...(noCache ? { RETRIEVAL_CACHE_SIZE: '0' } : {}),
      },
      stdio: ['ignore', logFd, logFd],
    });
    closeSync(logFd);
    const deadline = Date.now() + 90_000;
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`docs-chat serve exited with ${child.exitCode}; see ${path.join(dataDir, 'server.log')}`);
      try {
        if ((await fetch(`${url}/health`)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('docs-chat serve did not become healthy within 90 s');
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await fetch(`${url}/search?q=warm+up&k=10`);
    const phases: TypingPhase[] = [];
    for (const typists of [1, 50]) phases.push(await typingPhase(url, child.pid as number, typists, questions));
    return phases;
  } finally {
    child?.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await rm(dataDir, { recursive: true, force: true });
  }
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
const verdict = (ok: boolean): string => (ok ? 'ok' : 'OVER');

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const log = (line: string): void => void (json ? process.stderr : process.stdout).write(`${line}\n`);
  const questions = (await readQuestionSet(REDUX_QUESTIONS)).map((question) => question.question);
  const engineScript = await bundleEngine();
  log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}.`,
  );
  log(`Engine bundle: ${kb(Buffer.byteLength(engineScript))}, ${kb(gzipSync(engineScript, { level: 9 }).length)} gzip (with the stemmer).`);
  const redux = await measureStaticEngine('redux', REDUX_DIR, typedPrefixes(questions), engineScript);
  const docsSite = await measureStaticEngine('docs-site', DOCS_SITE_DIR, typedPrefixes(questions.slice(0, 10)), engineScript);
  const server = argv.includes('--skip-server') ? [] : await measureServerTyping(questions, argv.includes('--no-cache'), log);

  if (json) {
    process.stdout.write(`${JSON.stringify({ targets: TARGETS, static: [redux, docsSite], server }, null, 2)}\n`);
  } else {
    log('\nIn-browser engine (Chromium):');
    log('| corpus | pages | sections | index (gzip) | index ready after download, 5 fresh pages | query p50 | query p95 | max | queries |');
    log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const figures of [redux, docsSite]) {
      log(
        `| ${figures.corpus} | ${figures.pages} | ${figures.sections} | ${kb(figures.indexGzipBytes)} | ${figures.indexReadyMs.join(', ')} ms | ${figures.queryP50Ms} ms | ${figures.queryP95Ms} ms | ${figures.queryMaxMs} ms | ${figures.queries} |`,
      );
    }
    log(
      `Targets (redux): index ${kb(redux.indexGzipBytes)} <= ${TARGETS.reduxIndexGzipKb} KB ${verdict(redux.indexGzipBytes <= TARGETS.reduxIndexGzipKb * 1024)}; ` +
        `query p95 ${redux.queryP95Ms} <= ${TARGETS.queryP95Ms} ms ${verdict(redux.queryP95Ms <= TARGETS.queryP95Ms)}; ` +
        `index ready (slowest of ${FRESH_PAGES}) ${Math.max(...redux.indexReadyMs)} <= ${TARGETS.indexReadyMs} ms ${verdict(Math.max(...redux.indexReadyMs) <= TARGETS.indexReadyMs)}.`,
    );
    if (server.length > 0) {
      log('\nServer GET /search as readers type (redux index):');
      log('| typists | requests | req/s | errors | p50 | p95 | max | server CPU per request | load average |');
      log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
      for (const phase of server) {
        log(
          `| ${phase.typists} | ${phase.requests} | ${phase.requestsPerSecond} | ${phase.errors} | ${phase.p50Ms} ms | ${phase.p95Ms} ms | ${phase.maxMs} ms | ${phase.serverCpuMsPerRequest} ms | ${phase.loadAverage} |`,
        );
      }
      const fifty = server.find((phase) => phase.typists === 50);
      if (fifty)
        log(
          `Target: p95 at 50 typists ${fifty.p95Ms} <= ${TARGETS.serverP95Ms} ms ${verdict(fifty.p95Ms <= TARGETS.serverP95Ms && fifty.errors === 0)}.`,
        );
    }
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench-search: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
