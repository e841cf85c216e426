/**
 * The fault and load suite (`pnpm test:faults`): starts everything it needs
 * on 127.0.0.1 (the real server as `docs-chat serve` child processes, the
 * Gemini stand-in, a switchable TCP relay in front of the real Postgres when
 * one answers at 127.0.0.1:5432, else PGlite), runs bounded checks in four
 * categories, prints one line per check and a `tried / held` summary per
 * category, cleans up, and exits non-zero if any check did not hold.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres, { type Sql } from 'postgres';
import { loadCoreConfig, runIngest } from '@docs-chat/core';
import { startGeminiStandIn, type GeminiStandIn } from '@docs-chat/stand-ins';
import { createTestSchema, findTestPostgres, type TestSchema } from '../../../packages/server/src/conversations/test-postgres.js';
import { runBadInput } from './bad-input.js';
import { runHardeningChecks } from './hardening.js';
import { runIngestFaults } from './ingest-faults.js';
import { runDatabaseOutage, runModelFaults } from './llm-and-database-faults.js';
import { LOAD, runLoad } from './load.js';
import { runMarkdownFuzz } from './markdown-fuzz.js';
import {
  cleanUp,
  completion,
  REPO_ROOT,
  spawnTs,
  startServerProcess,
  stopChild,
  temporaryDirectory,
  type ServerProcess,
} from './processes.js';
import { SuiteReport } from './report.js';
import { runCorsAndAdminChecks, runHtmlAnswerCheck, runLogChecks, runRateLimitCheck } from './security.js';
import { startTcpRelay, type TcpRelay } from './tcp-relay.js';
import type { SuiteContext } from './suite-context.js';

/**
 * The whole suite normally takes about 4 minutes (the hardening checks restart a server four times);
 * past this it stops, cleans up and fails.
 */
const SUITE_DEADLINE_MS = 10 * 60_000;
const RATE_LIMITED_MAX = 3;
const LOAD_EVENT_DELAY_MS = 20;
const FIXTURE_DOCS = fileURLToPath(new URL('../../../packages/server/src/__fixtures__/docs/', import.meta.url));

const startedAt = performance.now();
const report = new SuiteReport();
const log = (line: string): void => void process.stdout.write(`${line}\n`);

/** A DATA_DIR holding the fixture docs' index, and a copy of the docs the suite may change. */
async function preparedIndex(label: string): Promise<{ dataDir: string; docsDir: string; env: Record<string, string> }> {
  const dataDir = await temporaryDirectory(`${label}-data`);
  const docsDir = await temporaryDirectory(`${label}-docs`);
  await cp(FIXTURE_DOCS, docsDir, { recursive: true });
  const env = { DATA_DIR: dataDir, DOCS_DIR: docsDir, EMBEDDING_PROVIDER: 'local', VECTOR_STORE: 'embedded' };
  await runIngest(loadCoreConfig(env), {});
  return { dataDir, docsDir, env };
}

function viaRelay(url: string, relay: TcpRelay): string {
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(relay.port);
  return relayed.toString();
}

/** The Gemini stand-in for the load phase, in its own process. */
async function standInProcess(eventDelayMs: number): Promise<{ url: string; apiKey: string; stop: () => Promise<unknown> }> {
  const cwd = await temporaryDirectory('stand-in-cwd');
  const child = spawnTs(
    fileURLToPath(new URL('./gemini-stand-in-process.ts', import.meta.url)),
    [String(eventDelayMs), `load-${randomUUID()}`],
    {},
    cwd,
  );
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('\n')) resolve(buffered.slice(0, buffered.indexOf('\n')));
    });
    void completion(child).then((result) => reject(new Error(`the stand-in process exited (${result.code}): ${result.stderr}`)));
  });
  return { ...(JSON.parse(line) as { url: string; apiKey: string }), stop: () => stopChild(child, 5000) };
}

/** What was opened, so `main` can close it whatever happened. */
interface Resources {
  gemini: GeminiStandIn;
  schemas: TestSchema[];
  servers: ServerProcess[];
  relay: TcpRelay | null;
  connections: Sql[];
  stopStandIn?: () => Promise<unknown>;
}

/** Fuzzing, faults, bad input and security, against the main server (and a rate-limited one). */
async function runFunctionalChecks(postgresUrl: string | null, resources: Resources): Promise<void> {
  log('\n== Markdown fuzzing');
  await runMarkdownFuzz(report);

  log('\n== Starting the main server');
  const mainIndex = await preparedIndex('main');
  const adminToken = randomBytes(24).toString('hex');
  let databaseUrl: string | undefined;
  let sql: Sql | null = null;
  if (postgresUrl) {
    const schema = await createTestSchema(postgresUrl);
    resources.schemas.push(schema);
    const target = new URL(postgresUrl);
    resources.relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    databaseUrl = viaRelay(schema.url, resources.relay);
    sql = postgres(schema.url, { max: 2, onnotice: () => undefined });
    resources.connections.push(sql);
  }
  const { gemini } = resources;
  const main = await startServerProcess('main', {
    ...mainIndex.env,
    GEMINI_API_KEY: gemini.apiKey,
    GEMINI_BASE_URL: gemini.url,
    LLM_PROVIDER: 'gemini',
    LLM_MODEL: 'gemini-3.8-flash',
    ADMIN_TOKEN: adminToken,
    RATE_LIMIT_MAX: '100000',
    // The suite reads conversations back and rates answers from one address; the hardened server tests these limits.
    CONVERSATION_RATE_LIMIT_MAX: '100000',
    FEEDBACK_RATE_LIMIT_MAX: '100000',
    // /search must show what the index holds right now, for the ingest checks.
    RETRIEVAL_CACHE_SIZE: '0',
    CORS_ORIGINS: 'http://localhost:3000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  resources.servers.push(main);
  log(`main server ${main.url} (pid ${main.pid}), default log level`);
  const context: SuiteContext = {
    report,
    main,
    gemini,
    dataDir: mainIndex.dataDir,
    docsDir: mainIndex.docsDir,
    adminToken,
    relay: resources.relay,
    sql,
    sent: new Set(),
  };

  log('\n== Faults');
  await runDatabaseOutage(context);
  await runModelFaults(context);
  await runIngestFaults(context);

  log('\n== Bad input');
  await runBadInput(context);

  log('\n== Security');
  const limitedIndex = await preparedIndex('limited');
  const limited = await startServerProcess('rate-limited', {
    ...limitedIndex.env,
    LLM_PROVIDER: 'extractive',
    RATE_LIMIT_MAX: String(RATE_LIMITED_MAX),
    ...(postgresUrl ? { DATABASE_URL: resources.schemas[0]!.url } : {}),
  });
  resources.servers.push(limited);
  await runCorsAndAdminChecks(context, limited);
  await runRateLimitCheck(report, limited, RATE_LIMITED_MAX);
  await runHtmlAnswerCheck(context);
  await limited.stop();

  log('\n== Hardening (issue 11): error shapes, timeouts, limits, SIGKILL mid-answer and mid-ingest');
  const hardenedIndex = await preparedIndex('hardened');
  await runHardeningChecks(context, {
    ...hardenedIndex.env,
    GEMINI_API_KEY: gemini.apiKey,
    GEMINI_BASE_URL: gemini.url,
    LLM_PROVIDER: 'gemini',
    LLM_MODEL: 'gemini-3.8-flash',
    ADMIN_TOKEN: adminToken,
  });
  const exitCode = await main.stop();
  if (exitCode !== 0) log(`(the main server exited ${exitCode} on SIGTERM)`);
  await runLogChecks(context);
}

/** 200 readers for 60 s against a server of its own, with the stand-in in its own process. */
async function runLoadPhase(postgresUrl: string | null, resources: Resources): Promise<void> {
  log(`\n== Load: ${LOAD.readers} readers for ${LOAD.durationMs / 1000} s`);
  const loadIndex = await preparedIndex('load');
  const standIn = await standInProcess(LOAD_EVENT_DELAY_MS);
  resources.stopStandIn = standIn.stop;
  let databaseUrl: string | undefined;
  let sql: Sql | null = null;
  if (postgresUrl) {
    const schema = await createTestSchema(postgresUrl);
    resources.schemas.push(schema);
    databaseUrl = schema.url;
    sql = postgres(schema.url, { max: 2, onnotice: () => undefined });
    resources.connections.push(sql);
  }
  const loaded = await startServerProcess(
    'load',
    {
      ...loadIndex.env,
      GEMINI_API_KEY: standIn.apiKey,
      GEMINI_BASE_URL: standIn.url,
      LLM_PROVIDER: 'gemini',
      LLM_MODEL: 'gemini-3.8-flash',
      RATE_LIMIT_MAX: '1000000',
      // Every answer is read back through GET /conversations/:id to count what was stored.
      CONVERSATION_RATE_LIMIT_MAX: '1000000',
      FEEDBACK_RATE_LIMIT_MAX: '1000000',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    ['--trace-gc'],
  );
  resources.servers.push(loaded);
  log(
    `load server ${loaded.url} (pid ${loaded.pid}), stand-in pacing ${LOAD_EVENT_DELAY_MS} ms per event, readers pause ${LOAD.thinkMs.join('-')} ms between questions`,
  );
  await runLoad(report, loaded, sql);
}

async function main(): Promise<void> {
  log(`docs-chat fault and load suite — ${new Date().toISOString()} (traffic to 127.0.0.1 only)`);
  // FAULT_SUITE_WITHOUT_POSTGRES=1 tries the PGlite path on a machine that has a Postgres.
  const postgresUrl = process.env.FAULT_SUITE_WITHOUT_POSTGRES === '1' ? null : await findTestPostgres();
  log(
    postgresUrl
      ? `Conversations: the real Postgres (${new URL(postgresUrl).host}), a schema per server, the main server through a switchable TCP relay.`
      : "Conversations: PGlite (no Postgres answers on 127.0.0.1:5432): the outage checks freeze and kill the embedded database's process instead of cutting a relay.",
  );
  const resources: Resources = {
    gemini: await startGeminiStandIn({ apiKey: `fault-suite-${randomUUID()}` }),
    schemas: [],
    servers: [],
    relay: null,
    connections: [],
  };
  // --only-load runs the load phase alone (to look into memory or throughput); --skip-load everything else.
  const onlyLoad = process.argv.includes('--only-load');
  const skipLoad = process.argv.includes('--skip-load');
  try {
    if (!onlyLoad) await runFunctionalChecks(postgresUrl, resources);
    if (!skipLoad) await runLoadPhase(postgresUrl, resources);
  } finally {
    for (const server of resources.servers) await server.stop();
    await resources.stopStandIn?.();
    await resources.gemini.close();
    await resources.relay?.close();
    for (const connection of resources.connections) await connection.end();
    for (const schema of resources.schemas) await schema.drop().catch(() => undefined);
    await cleanUp();
  }
}

const watchdog = setTimeout(() => {
  log(`\nThe suite ran past ${SUITE_DEADLINE_MS / 60_000} minutes: stopping.`);
  void cleanUp().finally(() => process.exit(1));
}, SUITE_DEADLINE_MS);
watchdog.unref();

let crashed: unknown = null;
try {
  await main();
} catch (error) {
  crashed = error;
  log(`\nThe suite could not run to the end: ${(error as Error).stack ?? String(error)}`);
}
clearTimeout(watchdog);
log('\n== Summary');
for (const line of report.summaryLines()) log(line);
const failed = report.outcomes.filter((outcome) => !outcome.held);
for (const outcome of failed) log(`did not hold: [${outcome.category}] ${outcome.sentence}: ${outcome.detail}`);
log(`total ${((performance.now() - startedAt) / 1000).toFixed(0)} s (from ${path.relative(process.cwd(), REPO_ROOT) || '.'})`);
process.exitCode = crashed === null && report.allHeld ? 0 : 1;
