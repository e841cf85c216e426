/**
 * WORKERS: the value is checked before anything starts, and several server
 * processes (`docs-chat serve` run as a real child process) share one port,
 * one rate limit per reader and the conversations in PostgreSQL. The cluster
 * tests need PostgreSQL (WORKERS > 1 requires DATABASE_URL) and run where one
 * answers (TEST_DATABASE_URL or 127.0.0.1:5432).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { startGeminiStandIn } from '@docs-chat/stand-ins';
import { readWorkerCount } from '../config.js';
import { DocsChatError } from '../core-api.js';
import { createTestSchema, findTestPostgres } from '../conversations/test-postgres.js';
import { runServeCommand } from '../serve-command.js';
import { captureStderr, createTestIndex, eventually, freePort } from '../testing/test-server.js';

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

describe('WORKERS', () => {
  const cores = availableParallelism();

  it.each(['0', '-1', 'two', '1.5', String(cores * 4 + 1)])(
    'stops start-up with exit code 2 and the allowed values when WORKERS=%s',
    async (value) => {
      const { code, stderr } = await captureStderr(() => runServeCommand([], { WORKERS: value, DATABASE_URL: 'postgres://localhost/x' }));
      expect(code).toBe(2);
      expect(stderr).toContain(`WORKERS="${value}" is not valid`);
      expect(stderr).toContain(`auto (one server process per CPU core, ${cores} here) or a whole number from 1 to ${cores * 4}`);
      expect(stderr).not.toMatch(/\n\s+at /);
    },
  );

  it('stops start-up with exit code 2 when several processes are asked for without DATABASE_URL', async () => {
    const { code, stderr } = await captureStderr(() => runServeCommand([], { WORKERS: '2' }));
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /WORKERS=2 runs 2 server processes, which needs DATABASE_URL: the embedded PGlite database can only be opened by one process/,
    );
    expect(stderr).toMatch(/Set DATABASE_URL .* or set WORKERS=1/);
  });

  it('runs one process by default, one per core with auto, and the number given otherwise', () => {
    const withDatabase = { DATABASE_URL: 'postgres://localhost/x' };
    expect(readWorkerCount({}, 8)).toBe(1);
    expect(readWorkerCount({ ...withDatabase, WORKERS: 'auto' }, 8)).toBe(8);
    expect(readWorkerCount({ ...withDatabase, WORKERS: ' AUTO ' }, 2)).toBe(2);
    expect(readWorkerCount({ ...withDatabase, WORKERS: '32' }, 8)).toBe(32);
    expect(readWorkerCount({ WORKERS: '1' }, 8)).toBe(1);
  });

  it('refuses several processes with the git sync, which runs in one', () => {
    expect(() =>
      readWorkerCount({ WORKERS: '2', DATABASE_URL: 'postgres://localhost/x', GIT_URL: 'https://example.com/docs.git' }, 4),
    ).toThrow(DocsChatError);
  });
});

/** A request on a fresh connection, so that the cluster hands it to the next process in turn. */
function send(
  url: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  fromAddress = '127.0.0.1',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${url}${path}`,
      {
        method,
        agent: false,
        localAddress: fromAddress,
        headers: body === undefined ? {} : { 'content-type': 'application/json', accept: 'application/json' },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
      },
    );
    outgoing.once('error', reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Parsed JSON log lines of the primary and every server process (they share stdout). */
  logs(): Record<string, unknown>[];
  stop(): Promise<number | null>;
}

async function startServe(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'serve'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const logs = (): Record<string, unknown>[] =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const url = `http://127.0.0.1:${env.PORT}`;
  await eventually(() => {
    if (child.exitCode !== null) throw new Error(`docs-chat serve exited (${child.exitCode}): ${errors}${output}`);
    return logs().some((entry) => entry.msg === 'docs-chat server ready' && entry.workers !== undefined);
  }, 120_000);
  return {
    child,
    url,
    logs,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const postgresUrl = await findTestPostgres();

if (postgresUrl) {
  describe('docs-chat serve with WORKERS=2', () => {
    it('serves from two processes with one rate limit per reader, and replaces a killed process once, marking its answer interrupted', async () => {
      const index = await createTestIndex();
      const schema = await createTestSchema(postgresUrl);
      const gemini = await startGeminiStandIn({ eventDelayMs: 0 });
      let serve: ServeProcess | undefined;
      try {
        serve = await startServe({
          ...index.env,
          WORKERS: '2',
          DATABASE_URL: schema.url,
          PORT: String(await freePort()),
          HOST: '127.0.0.1',
          GEMINI_API_KEY: gemini.apiKey,
          GEMINI_BASE_URL: gemini.url,
          RATE_LIMIT_MAX: '4',
          LOG_LEVEL: 'debug',
        });
        const server = serve;
        const pidsOf = (message: string) =>
          new Set(
            server
              .logs()
              .filter((entry) => entry.msg === message)
              .map((entry) => entry.pid),
          );

        // Two processes answer, in turn, on one port.
        for (let index = 0; index < 4; index += 1) expect((await send(server.url, 'GET', '/search?q=install')).status).toBe(200);
        await eventually(() => pidsOf('request completed').size === 2, 5_000);
        // One scrape, whichever process takes it, counts the searches both processes answered.
        for (let scrape = 0; scrape < 2; scrape += 1) {
          const metrics = await send(server.url, 'GET', '/metrics');
          expect(metrics.status).toBe(200);
          expect(metrics.text).toContain('docs_chat_http_requests_total{method="GET",route="/search",status="200"} 4\n');
          expect(metrics.text).toContain('docs_chat_server_processes_reporting 2\n');
        }

        // Five questions from one reader spread over both processes: the fifth is over the shared limit of 4.
        const statuses: number[] = [];
        for (let index = 0; index < 5; index += 1)
          statuses.push((await send(server.url, 'POST', '/chat', { message: 'How do I install Tidewater?', mode: 'general' })).status);
        expect(statuses).toEqual([200, 200, 200, 200, 429]);
        await eventually(() => pidsOf('chat answer finished').size === 2, 5_000);

        // An answer is running when its process is killed (asked from another address: this one is over its limit).
        gemini.setDelay(300);
        void send(server.url, 'POST', '/chat', { message: 'How do I configure the harbor?', mode: 'general' }, '127.0.0.2').catch(
          () => undefined,
        );
        let started: Record<string, unknown> | undefined;
        await eventually(() => {
          const logs = server.logs();
          const finished = new Set(logs.filter((entry) => entry.msg === 'chat answer finished').map((entry) => entry.messageId));
          started = logs.find((entry) => entry.msg === 'chat answer started' && !finished.has(entry.messageId));
          return started !== undefined;
        }, 10_000);
        const sql = postgres(schema.url, { max: 1, onnotice: () => undefined });
        try {
          await eventually(
            async () => (await sql`select status from messages where id = ${String(started!.messageId)}`)[0]?.status === 'pending',
            10_000,
          );
          process.kill(Number(started!.pid), 'SIGKILL');
          await eventually(
            () => server.logs().filter((entry) => entry.msg === 'docs-chat server ready' && entry.workers === undefined).length === 3,
            30_000,
          );
          const deaths = server.logs().filter((entry) => String(entry.msg).startsWith('a server process died'));
          expect(deaths).toHaveLength(1);
          expect(deaths[0]).toMatchObject({ restartInMs: 1000, deathsInARow: 1, signal: 'SIGKILL' });
          await eventually(
            async () => (await sql`select status from messages where id = ${String(started!.messageId)}`)[0]?.status === 'interrupted',
            15_000,
          );
        } finally {
          await sql.end();
        }
        gemini.setDelay(0);
        expect((await send(server.url, 'GET', '/health')).status).toBe(200);
        expect(await server.stop()).toBe(0);
      } finally {
        await serve?.stop();
        await gemini.close();
        await schema.drop();
        await index.remove();
      }
    }, 180_000);
  });
}
