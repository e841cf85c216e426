/**
 * How long the server's event loop stalls while `POST /admin/ingest` runs (not a test):
 * `node --import tsx eval/src/bench-admin-ingest-loop.ts [--rebuild] [--in-process]`. Ingests the redux corpus
 * with the offline hashing embedder, starts the server in this process (so perf_hooks.monitorEventLoopDelay
 * sees its loop), then asks for an admin ingest and prints the loop delay percentiles during it. By default
 * the server gets its environment, as `docs-chat serve` does, so the ingest runs in a child process;
 * `--in-process` runs it on the server's own thread, for comparison.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadCoreConfig, runIngest } from '@docs-chat/core';
import { loadConfig, startServer } from '@docs-chat/server';

const CORPUS_DIR = path.resolve(fileURLToPath(new URL('../../', import.meta.url)), '../shared/corpora/redux');
const ADMIN_TOKEN = 'bench-admin-token-0123456789';

const dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-bench-admin-'));
try {
  const env = { DATA_DIR: dataDir, DOCS_DIR: CORPUS_DIR, EMBEDDING_PROVIDER: 'local', VECTOR_STORE: 'embedded' };
  await runIngest(loadCoreConfig(env), {});
  const serverEnv = { ...env, PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN, LOG_LEVEL: 'warn', LLM_PROVIDER: 'extractive' };
  const inProcess = process.argv.includes('--in-process');
  const server = await startServer(loadConfig(serverEnv), inProcess ? {} : { env: { ...process.env, ...serverEnv } });
  try {
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    const started = performance.now();
    const response = await fetch(`${server.url}/admin/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ rebuild: process.argv.includes('--rebuild') }),
    });
    await response.arrayBuffer();
    histogram.disable();
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    process.stdout.write(
      `admin ingest ${inProcess ? 'on the server thread' : 'in a child process'} (${process.argv.includes('--rebuild') ? 'rebuild' : 'nothing changed'}): HTTP ${response.status} in ${((performance.now() - started) / 1000).toFixed(1)} s; event-loop delay p50 ${ms(histogram.percentile(50))} ms, p99 ${ms(histogram.percentile(99))} ms, max ${ms(histogram.max)} ms; load average ${loadavg()[0]!.toFixed(1)}\n`,
    );
  } finally {
    await server.close();
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
