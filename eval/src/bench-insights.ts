/**
 * Insights benchmark (not a test): `node --import tsx eval/src/bench-insights.ts [--questions 100000] [--calls 20] [--embedder neural|local] [--json] [--keep]`
 *
 * Creates the database docs_chat_bench_insights on the Postgres of
 * BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test, used
 * only to create and drop that database), seeds it with --questions
 * questions and their answers over the last 30 days (batched inserts: refused,
 * failed and selection-mode questions, cited sources, feedback), starts the
 * server in this process on the docs-site index, and times
 * `GET /admin/insights?since=30d` over --calls calls. Target: p95 ≤ 1 s at
 * 100,000 questions. The report cache is off (INSIGHTS_CACHE_SECONDS=0), so
 * every call runs the report's SQL; only the question embeddings and the gap
 * searches come from their caches after the first call, which is reported
 * apart. The 1-minute load average is printed beside the figures (the
 * machine may be shared). The database is dropped at the end unless --keep.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { loadCoreConfig, runIngest } from '@docs-chat/core';
import { loadConfig, startServer } from '@docs-chat/server';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATABASE = 'docs_chat_bench_insights';
const ADMIN_TOKEN = 'bench-insights-token';

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

const questionsWanted = Number(option('--questions') ?? 100_000);
const calls = Number(option('--calls') ?? 20);
const embedderName = option('--embedder') ?? 'neural';
const asJson = process.argv.includes('--json');
const keep = process.argv.includes('--keep');
if (embedderName !== 'neural' && embedderName !== 'local') throw new Error('--embedder must be neural or local.');

const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const benchUrl = adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${DATABASE}$1`).replace(/undefined$/, '');

// Topics and wordings combine into a few thousand distinct questions, asked with a long tail as real readers do.
const TOPICS = [
  'install the widget',
  'configure the server',
  'set the admin token',
  'use Postgres for conversations',
  'run the ingest',
  'change the embedding model',
  'deploy with Docker',
  'add the plugin to docusaurus.config.js',
  'limit requests per minute',
  'translate the widget',
  'search a versioned site',
  'index JSON records',
  'sync docs from git',
  'read the health check',
  'rate an answer',
  'highlight text and ask',
  'use Qdrant',
  'back up the data directory',
  'rotate the API key',
  'enable CORS',
];
const OFF_TOPIC = [
  'bake banana bread',
  'book a flight to Lisbon',
  'fix my car brakes',
  'learn to play chess',
  'grow tomatoes indoors',
  'file my taxes',
];
const WORDINGS = [
  'How do I {t}?',
  'how to {t}',
  'Can I {t}?',
  'What is the best way to {t}?',
  'Is there a guide to {t}?',
  'Steps to {t}',
  'I cannot {t}, help',
  'Where do I {t}?',
];
const PAGES = Array.from({ length: 120 }, (_, index) => `https://docs.example.com/docs/page-${index}`);

interface Seeded {
  questions: number;
  seedSeconds: number;
}

async function seed(sql: postgres.Sql): Promise<Seeded> {
  const started = performance.now();
  const batch = 5000;
  let written = 0;
  // A pseudo-random but repeatable stream, so two runs seed the same data.
  let state = 42;
  const random = (): number => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() ** 2 * items.length)] as T;
  const now = Date.now();
  while (written < questionsWanted) {
    const size = Math.min(batch, questionsWanted - written);
    const conversations: string[] = [];
    const rows: {
      id: string;
      conversation_id: string;
      role: string;
      content: string;
      mode: string;
      sources: string;
      status: string;
      finish_reason: string | null;
      created_at: string;
      page_url: string | null;
      page_title: string | null;
    }[] = [];
    const votes: { message_id: string; rating: string }[] = [];
    let conversation = randomUUID();
    conversations.push(conversation);
    for (let index = 0; index < size; index += 1) {
      // About three questions per conversation.
      if (random() < 0.33) {
        conversation = randomUUID();
        conversations.push(conversation);
      }
      const at = new Date(now - random() * 30 * 86_400_000);
      const selection = random() < 0.1;
      const offTopic = !selection && random() < 0.1;
      const topic = offTopic ? pick(OFF_TOPIC) : pick(TOPICS);
      const question = selection
        ? 'What does this mean?'
        : pick(WORDINGS).replace('{t}', topic) + (random() < 0.2 ? ` (${Math.floor(random() * 50)})` : '');
      const outcome = random();
      const failed = outcome < 0.03;
      const page = pick(PAGES);
      const sources =
        offTopic || failed || selection
          ? []
          : [0, 1, 2].slice(0, 1 + Math.floor(random() * 3)).map(() => {
              const cited = pick(PAGES);
              return {
                file: `${cited.slice(cited.lastIndexOf('/') + 1)}.md`,
                title: `Page ${cited.slice(cited.lastIndexOf('-') + 1)}`,
                heading: 'Usage',
                headingPath: ['Page', 'Usage'],
                url: `${cited}#usage`,
                score: 0.8,
              };
            });
      const answerId = randomUUID();
      rows.push({
        id: randomUUID(),
        conversation_id: conversation,
        role: 'user',
        content: question,
        mode: selection ? 'selection' : 'general',
        sources: '[]',
        status: 'complete',
        finish_reason: null,
        created_at: at.toISOString(),
        page_url: selection || random() < 0.5 ? page : null,
        page_title: 'A page',
      });
      rows.push({
        id: answerId,
        conversation_id: conversation,
        role: 'assistant',
        content: offTopic ? 'The documentation does not cover this.' : 'An answer citing [1].',
        mode: selection ? 'selection' : 'general',
        sources: JSON.stringify(sources),
        status: failed ? 'error' : 'complete',
        finish_reason: failed ? 'error' : offTopic ? 'no_answer' : 'stop',
        created_at: new Date(at.getTime() + 2000).toISOString(),
        page_url: null,
        page_title: null,
      });
      const vote = random();
      if (vote < 0.05) votes.push({ message_id: answerId, rating: 'up' });
      else if (vote < 0.07) votes.push({ message_id: answerId, rating: 'down' });
    }
    await sql`insert into conversations ${sql(conversations.map((id) => ({ id })))}`;
    // In row order, so each answer's seq follows its question's.
    for (let start = 0; start < rows.length; start += 2000) {
      const chunk = rows.slice(start, start + 2000);
      await sql.unsafe(
        `insert into messages (id, conversation_id, role, content, mode, sources, status, finish_reason, created_at, page_url, page_title)
         select id, conversation_id, role, content, mode, sources::jsonb, status, finish_reason, created_at, page_url, page_title
           from jsonb_to_recordset($1::jsonb) as r(id uuid, conversation_id uuid, role text, content text, mode text, sources text, status text,
                                                    finish_reason text, created_at timestamptz, page_url text, page_title text)`,
        [chunk as never],
      );
    }
    if (votes.length > 0) await sql`insert into feedback ${sql(votes)}`;
    written += size;
  }
  // What autovacuum would do on a live database: statistics, and the visibility map for index-only scans.
  await sql.unsafe('vacuum analyze messages');
  await sql.unsafe('vacuum analyze feedback');
  return { questions: written, seedSeconds: (performance.now() - started) / 1000 };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
const dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-bench-insights-'));
let server: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  await admin.unsafe(`drop database if exists ${DATABASE}`);
  await admin.unsafe(`create database ${DATABASE}`);
  const env = {
    DATA_DIR: dataDir,
    DOCS_DIR: path.join(REPO_ROOT, 'docs-site/docs'),
    EMBEDDING_PROVIDER: embedderName,
    VECTOR_STORE: 'embedded',
    DATABASE_URL: benchUrl,
    ADMIN_TOKEN,
    LLM_PROVIDER: 'extractive',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // Every call builds its report: the figure is the database's work, not the cache's.
    INSIGHTS_CACHE_SECONDS: '0',
  };
  process.stderr.write(`ingesting docs-site/docs with the ${embedderName} embedder...\n`);
  await runIngest(loadCoreConfig(env));
  // The server creates the schema (migrations), then the seed fills it.
  server = await startServer(loadConfig(env), { logDestination: { write: () => true } });
  const sql = postgres(benchUrl, { max: 2, onnotice: () => undefined });
  process.stderr.write(`seeding ${questionsWanted} questions...\n`);
  const seeded = await seed(sql);
  await sql.end();

  const loadBefore = loadavg()[0] ?? Number.NaN;
  const timings: number[] = [];
  let report: { totals: Record<string, number>; top_questions: unknown[]; gaps: unknown[] } | undefined;
  for (let call = 0; call <= calls; call += 1) {
    const started = performance.now();
    const response = await fetch(`${server.url}/admin/insights?since=30d`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`GET /admin/insights answered ${response.status}: ${body.slice(0, 300)}`);
    report = JSON.parse(body) as typeof report;
    timings.push(elapsed);
  }
  const [first = Number.NaN, ...rest] = timings;
  const sorted = [...rest].sort((a, b) => a - b);
  const result = {
    questions: seeded.questions,
    seed_seconds: Number(seeded.seedSeconds.toFixed(1)),
    embedder: embedderName,
    first_call_ms: Math.round(first),
    calls: rest.length,
    p50_ms: Math.round(percentile(sorted, 50)),
    p95_ms: Math.round(percentile(sorted, 95)),
    max_ms: Math.round(sorted.at(-1) ?? Number.NaN),
    target_p95_ms: 1000,
    load_average: [Number(loadBefore.toFixed(1)), Number((loadavg()[0] ?? Number.NaN).toFixed(1))],
    report_totals: report?.totals,
    groups: report?.top_questions.length,
    gaps: report?.gaps.length,
  };
  if (asJson) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    process.stdout.write(
      [
        `GET /admin/insights?since=30d over ${result.questions.toLocaleString('en')} stored questions (Postgres, ${embedderName} embedder; seeded in ${result.seed_seconds} s)`,
        `  first call (embeds the distinct questions, searches the gaps): ${result.first_call_ms} ms`,
        `  next ${result.calls} calls, report cache off: p50 ${result.p50_ms} ms, p95 ${result.p95_ms} ms, max ${result.max_ms} ms (target p95 ≤ 1000 ms: ${result.p95_ms <= 1000 ? 'met' : 'NOT met'})`,
        `  1-minute load average ${result.load_average[0]} before the calls, ${result.load_average[1]} after (${cpus().length} CPUs)`,
        `  report: ${JSON.stringify(result.report_totals)}, ${result.groups} question groups, ${result.gaps} gaps`,
        '',
      ].join('\n'),
    );
  }
} finally {
  await server?.close();
  if (!keep) await admin.unsafe(`drop database if exists ${DATABASE} with (force)`).catch(() => undefined);
  await admin.end();
  await rm(dataDir, { recursive: true, force: true });
}
