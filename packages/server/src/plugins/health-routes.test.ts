import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import type { MetaEvent, WarningEvent } from '@docs-chat/core/protocol';
import { createPostgresConversationStore } from '../conversations/postgres-conversation-store.js';
import type { HealthReport } from '../health/health-check.js';
import {
  answerText,
  createTestIndex,
  eventually,
  postChat,
  startTestServer,
  type TestIndex,
  type TestServer,
} from '../testing/test-server.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

async function getHealth(server: TestServer): Promise<{ status: number; body: HealthReport; elapsedMs: number }> {
  const started = performance.now();
  const response = await fetch(`${server.url}/health`);
  const body = (await response.json()) as HealthReport;
  return { status: response.status, body, elapsedMs: performance.now() - started };
}

/** A TCP server that accepts connections and never says a word: a database that hangs. */
async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let index: TestIndex;

beforeAll(async () => {
  index = await createTestIndex();
  // Created here, once, rather than inside the first test's time budget.
  await index.sharedStore();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await index?.remove();
});

/** The shared conversation store, counting the database pings /health makes. */
async function countingStore(): Promise<{ store: Awaited<ReturnType<TestIndex['sharedStore']>>; pings: () => number }> {
  const shared = await index.sharedStore();
  let pings = 0;
  const store = new Proxy(shared, {
    get(target, property) {
      if (property === 'ping') {
        return (timeoutMs: number) => {
          pings += 1;
          return target.ping(timeoutMs);
        };
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, pings: () => pings };
}

describe('GET /health from a recent check', () => {
  it('answers a burst of polls from one database check, with the server figures current', async () => {
    const { store, pings } = await countingStore();
    const server = await startTestServer({ index, store, env: { HEALTH_CACHE_MS: '60000' } });
    try {
      const first = await getHealth(server);
      expect(first.status).toBe(200);
      const burst = await Promise.all(Array.from({ length: 50 }, () => getHealth(server)));
      expect(pings()).toBe(1);
      expect(burst.every(({ status, body }) => status === 200 && body.checked_at === first.body.checked_at)).toBe(true);
      expect(burst.every(({ body }) => body.timestamp >= first.body.timestamp)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('serves an old check once while a fresh one runs, then the fresh one', async () => {
    const { store, pings } = await countingStore();
    const server = await startTestServer({ index, store, env: { HEALTH_CACHE_MS: '100' } });
    try {
      const first = await getHealth(server);
      await new Promise((resolve) => setTimeout(resolve, 250));
      const stale = await getHealth(server);
      expect(stale.body.checked_at).toBe(first.body.checked_at);
      await eventually(() => pings() === 2);
      // The ping is one part of the check: the fresh result is served once the whole check has finished.
      let fresh = first;
      await eventually(async () => {
        fresh = await getHealth(server);
        return fresh.body.checked_at > first.body.checked_at;
      });
      expect(fresh.status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('checks on every poll with HEALTH_CACHE_MS=0', async () => {
    const { store, pings } = await countingStore();
    const server = await startTestServer({ index, store, env: { HEALTH_CACHE_MS: '0' } });
    try {
      for (let poll = 0; poll < 3; poll += 1) expect((await getHealth(server)).status).toBe(200);
      expect(pings()).toBe(3);
    } finally {
      await server.close();
    }
  });
});

describe('GET /health', () => {
  it('reports every dependency up with 200 when all is well', async () => {
    const server = await startTestServer({ index });
    try {
      const { status, body } = await getHealth(server);
      expect(status).toBe(200);
      expect(body.status).toBe('healthy');
      expect(body.services.server.status).toBe('up');
      expect(body.services.vector_store).toMatchObject({ status: 'up', backend: 'embedded', collection: 'docusaurus-book' });
      expect(body.services.vector_store.vectors).toBeGreaterThan(5);
      expect(body.services.postgres).toEqual({ status: 'up', backend: 'pglite' });
      expect(body.services.llm).toEqual({ status: 'up', provider: 'gemini', model: 'gemini-3.8-flash' });
      expect(Date.parse(body.timestamp)).not.toBeNaN();
    } finally {
      await server.close();
    }
  });

  it('checks the model key once at start-up, not on every poll', async () => {
    const server = await startTestServer({ index });
    try {
      const modelChecks = () => server.gemini.requests.filter((request) => request.method === 'GET').length;
      const before = modelChecks();
      expect(before).toBe(1);
      await getHealth(server);
      await getHealth(server);
      expect(modelChecks()).toBe(before);
    } finally {
      await server.close();
    }
  });

  it('answers 503 unhealthy when the vector store cannot be read', async () => {
    const server = await startTestServer({ index });
    const manifest = path.join(index.dataDir, 'index', 'docusaurus-book', 'manifest.json');
    const original = await readFile(manifest, 'utf8');
    try {
      await writeFile(manifest, '{ this is not json');
      const { status, body } = await getHealth(server);
      expect(status).toBe(503);
      expect(body.status).toBe('unhealthy');
      expect(body.services.vector_store.status).toBe('down');
      expect(body.services.vector_store.detail).toMatch(/index_corrupt|manifest/);
    } finally {
      await writeFile(manifest, original);
      await server.close();
    }
    const after = await startTestServer({ index });
    try {
      expect((await getHealth(after)).status).toBe(200);
    } finally {
      await after.close();
    }
  });

  it('says degraded while Postgres is unreachable, and answers still stream unsaved', async () => {
    const store = createPostgresConversationStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/test', connectTimeoutSeconds: 1 });
    const server = await startTestServer({ index, store });
    try {
      const { status, body } = await getHealth(server);
      expect(status).toBe(200);
      expect(body.status).toBe('degraded');
      expect(body.services.postgres).toMatchObject({ status: 'down', backend: 'postgres' });
      expect(body.services.vector_store.status).toBe('up');

      const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
      expect(reply.status).toBe(200);
      expect((reply.events[0] as MetaEvent).persisted).toBe(false);
      const warning = reply.events.find((event): event is WarningEvent => event.type === 'warning');
      expect(warning?.code).toBe('conversation_not_saved');
      expect(answerText(reply.events)).toMatch(/\[1\]/);
      expect(reply.events.at(-1)?.type).toBe('done');
    } finally {
      await server.close();
    }
  });

  it('answers within 500 ms even when the database hangs without answering', async () => {
    const silent = await startSilentServer();
    const store = createPostgresConversationStore({
      databaseUrl: `postgres://postgres@127.0.0.1:${silent.port}/test`,
      connectTimeoutSeconds: 30,
    });
    const server = await startTestServer({ index, store });
    try {
      const { status, body, elapsedMs } = await getHealth(server);
      expect(status).toBe(200);
      expect(body.status).toBe('degraded');
      expect(body.services.postgres.detail).toMatch(/did not answer/);
      expect(elapsedMs).toBeLessThan(500);
    } finally {
      await server.close();
      await silent.close();
    }
  }, 60_000);

  it('reports the model down and the service degraded when the provider could not be reached at start-up', async () => {
    const server = await startTestServer({ index, env: { GEMINI_BASE_URL: 'http://127.0.0.1:1' } });
    try {
      const { status, body } = await getHealth(server);
      expect(status).toBe(200);
      expect(body.status).toBe('degraded');
      expect(body.services.llm).toMatchObject({ status: 'down', provider: 'gemini' });
    } finally {
      await server.close();
    }
  });
});
