/**
 * `pnpm bench`: runs every benchmark script one after the other (so they do
 * not compete for the CPUs) and prints their tables:
 *   1. retrieval: ingest time, search latency (redux and a synthetic 50,000-chunk index)
 *   2. chat: 1 / 50 / 200 concurrent readers with the Gemini stand-in, 30 s per phase: readers who pause
 *      0.5-1.5 s between questions (what the targets are judged on) three times over, with the spread; the
 *      same with the retrieval cache off; with every question new (the question encoder embeds each one);
 *      with WORKERS=auto; then a closed loop with no pause (stress).
 *      Each prints first-token times, server CPU per answer, event-loop p99 and /health p95 per phase.
 *   3. widget bundle size and the static search index's size
 *   4. search: the in-browser engine in Chromium (index ready, query latency) and GET /search as readers type
 *   5. insights: GET /admin/insights over 100,000 stored questions on Postgres (needs 127.0.0.1:5432 or BENCH_POSTGRES_URL)
 *   6. metrics: the CPU the Prometheus metrics add per answer and per scrape
 *   7. MCP: search_docs over Streamable HTTP and stdio, beside GET /search
 *   (also answers' final saves, one statement each or batched, and the CPU of reading the model's answer stream)
 * `--only insights,mcp` runs only the scripts with those keys (retrieval, chat, chat-uncached, chat-new, chat-workers, stress, bundle, search,
 * insights, metrics, saves, model-client, mcp), to re-measure one figure without the rest.
 * Extra arguments are passed to every script (e.g. `--json`).
 * Results, with the machine and this command, are recorded on the Benchmarks
 * page of the docs site (docs-site/docs/quality/benchmarks.md).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const scripts = [
  { key: 'retrieval', name: 'Retrieval', file: 'bench-retrieval.ts', args: [] },
  {
    key: 'chat',
    name: 'Chat: readers pausing about 1 s between questions, 3 rounds (retrieval cache on)',
    file: 'bench-chat.ts',
    args: ['--think-ms', '1000', '--repeat', '3'],
  },
  {
    key: 'chat-uncached',
    name: 'Chat: readers, retrieval cache off (every answer searches the index)',
    file: 'bench-chat.ts',
    args: ['--think-ms', '1000', '--no-cache'],
  },
  {
    key: 'chat-new',
    name: 'Chat: readers asking only new questions (no cache serves them: the neural question encoder embeds each one)',
    file: 'bench-chat.ts',
    args: ['--think-ms', '1000', '--no-cache', '--unseen'],
  },
  {
    key: 'chat-workers',
    name: 'Chat: readers, WORKERS=auto (one server process per core; needs PostgreSQL)',
    file: 'bench-chat.ts',
    args: ['--think-ms', '1000', '--workers', 'auto'],
  },
  { key: 'stress', name: 'Chat: closed loop (stress)', file: 'bench-chat.ts', args: ['--think-ms', '0'] },
  { key: 'bundle', name: 'Widget bundle size and static search index', file: 'bench-bundle.ts', args: [] },
  { key: 'search', name: 'Search: the in-browser engine in Chromium and GET /search as readers type', file: 'bench-search.ts', args: [] },
  { key: 'insights', name: 'Insights report over 100,000 stored questions (Postgres)', file: 'bench-insights.ts', args: [] },
  { key: 'metrics', name: 'Metrics: CPU per answer and per scrape', file: 'bench-metrics.ts', args: [] },
  { key: 'saves', name: "Answers' final saves: one statement each or batched (Postgres)", file: 'bench-answer-saves.ts', args: [] },
  { key: 'model-client', name: "Reading the model's answer stream: CPU per answer", file: 'bench-model-client.ts', args: [] },
  { key: 'mcp', name: 'MCP: search_docs over Streamable HTTP and stdio', file: 'bench-mcp.ts', args: [] },
];

function run(file: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, file), ...args], {
      stdio: 'inherit',
      cwd: path.resolve(here, '../..'),
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

const args = process.argv.slice(2);
const onlyAt = args.indexOf('--only');
const only = onlyAt === -1 ? undefined : new Set((args.splice(onlyAt, 2)[1] ?? '').split(','));
const unknown = [...(only ?? [])].filter((key) => !scripts.some((script) => script.key === key));
if (unknown.length > 0) {
  process.stderr.write(
    `--only: unknown benchmark ${unknown.join(', ')}; choose among ${scripts.map((script) => script.key).join(', ')}.\n`,
  );
  process.exit(2);
}
process.stdout.write(
  `docs-chat benchmarks — ${new Date().toISOString()}\nMachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}\n`,
);
let failed = 0;
for (const script of scripts.filter((entry) => only === undefined || only.has(entry.key))) {
  process.stdout.write(`\n## ${script.name}\n\n1-minute load average before: ${os.loadavg()[0]?.toFixed(1)}\n`);
  const code = await run(script.file, [...script.args, ...args]);
  if (code !== 0) {
    failed += 1;
    process.stdout.write(`(${script.file} exited with code ${code})\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
