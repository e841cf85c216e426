/**
 * The rate-limit store of WORKERS > 1: two Fastify apps standing for two server processes count one reader's
 * requests together in one database (embedded PGlite here, with the real migrations; the cluster test runs
 * the same store on PostgreSQL).
 */
import { request as httpRequest } from 'node:http';
import fastifyRateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import type { PGlite } from '@electric-sql/pglite';
import { runMigrations } from '../conversations/migrations.js';
import { openPgliteDatabase } from '../conversations/pglite-conversation-store.js';
import type { SqlClient } from '../conversations/sql-client.js';
import { postgresRateLimitStore } from './postgres-rate-limit-store.js';

let db: PGlite;
let client: SqlClient;

beforeAll(async () => {
  db = await openPgliteDatabase(':memory:');
  client = {
    query: async <Row>(text: string, params: readonly unknown[] = []) => (await db.query<Row>(text, [...params])).rows,
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: async <Row>(text: string, params: readonly unknown[] = []) => (await tx.query<Row>(text, [...params])).rows,
          transaction: () => Promise.reject(new Error('nested')),
        }),
      ),
  };
  await runMigrations(client);
}, 60_000);

afterAll(async () => {
  await db.close();
});

interface Process {
  app: FastifyInstance;
  /** POSTs to the path from the reader at `from` (a loopback address). */
  post(path: string, from: string): Promise<{ statusCode: number; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}

/** One "server process": its own plugin instance, store class and routes, on the shared database. */
async function serverProcess(windowMs: number): Promise<Process> {
  const app = Fastify();
  await app.register(fastifyRateLimit, { global: false, store: postgresRateLimitStore(client, () => undefined) });
  app.post('/chat', { config: { rateLimit: { max: 3, timeWindow: windowMs } } }, async () => ({ ok: true }));
  app.post('/feedback', { config: { rateLimit: { max: 3, timeWindow: windowMs } } }, async () => ({ ok: true }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    post: (path, from) =>
      new Promise((resolve, reject) => {
        const outgoing = httpRequest(`${url}${path}`, { method: 'POST', agent: false, localAddress: from }, (incoming) => {
          incoming.resume();
          incoming.once('end', () => resolve({ statusCode: incoming.statusCode ?? 0, headers: incoming.headers }));
        });
        outgoing.once('error', reject);
        outgoing.end();
      }),
    close: () => app.close(),
  };
}

describe('the shared rate-limit store', () => {
  it('counts one reader across two server processes: the fourth request within the window is refused, with retry-after', async () => {
    const first = await serverProcess(60_000);
    const second = await serverProcess(60_000);
    try {
      const statuses: number[] = [];
      let last;
      for (const app of [first, second, first, second]) {
        last = await app.post('/chat', '127.0.0.7');
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Number(last?.headers['retry-after'])).toBeGreaterThan(50);
      expect(last?.headers['x-ratelimit-limit']).toBe('3');
      // Another reader and another route have counts of their own.
      expect((await second.post('/chat', '127.0.0.8')).statusCode).toBe(200);
      expect((await first.post('/feedback', '127.0.0.7')).statusCode).toBe(200);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('starts a new window once the old one has ended', async () => {
    const first = await serverProcess(500);
    const second = await serverProcess(500);
    try {
      for (let index = 0; index < 3; index += 1) await first.post('/chat', '127.0.0.9');
      expect((await second.post('/chat', '127.0.0.9')).statusCode).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await second.post('/chat', '127.0.0.9')).statusCode).toBe(200);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
