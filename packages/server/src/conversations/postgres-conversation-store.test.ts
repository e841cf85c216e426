/**
 * What the Postgres store does when the database goes away and comes back.
 * The unreachable cases need no database; the recovery case runs through a
 * local TCP relay in front of the real Postgres, which the test stops and restarts.
 */
import { randomUUID } from 'node:crypto';
import { createServer, Socket } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { ConversationStoreUnavailableError } from './conversation-store.js';
import { createConversationStore } from './create-conversation-store.js';
import { createTestSchema, findTestPostgres, NO_TEST_POSTGRES_REASON } from './test-postgres.js';

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port on which nothing listens any more. */
async function deadPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await closeServer(server);
  return port;
}

describe('the Postgres conversation store when the database cannot be reached', () => {
  it('rejects with ConversationStoreUnavailableError when nothing listens on the port', async () => {
    const store = await createConversationStore({
      databaseUrl: `postgres://postgres@127.0.0.1:${await deadPort()}/test`,
      dataDir: ':memory:',
    });
    try {
      expect(store.backend).toBe('postgres');
      await expect(store.migrate()).rejects.toBeInstanceOf(ConversationStoreUnavailableError);
      const error: unknown = await store.createConversation(randomUUID()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConversationStoreUnavailableError);
      expect((error as ConversationStoreUnavailableError).code).toBe('conversation_store_unavailable');
      expect((error as ConversationStoreUnavailableError).hint).toMatch(/DATABASE_URL/);
      await expect(store.ping(1000)).rejects.toBeInstanceOf(ConversationStoreUnavailableError);
    } finally {
      await store.close();
    }
  }, 10_000);

  it('gives up after the connect timeout when the server accepts connections but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    const port = await listen(silent);
    const store = await createConversationStore({
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/test`,
      dataDir: ':memory:',
      connectTimeoutSeconds: 1,
    });
    try {
      await expect(store.getConversation(randomUUID())).rejects.toBeInstanceOf(ConversationStoreUnavailableError);
    } finally {
      await store.close();
      for (const socket of sockets) socket.destroy();
      await closeServer(silent);
    }
  }, 10_000);

  it('stops a statement that hangs after the query timeout', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    const port = await listen(silent);
    const store = await createConversationStore({
      databaseUrl: `postgres://postgres@127.0.0.1:${port}/test?connect_timeout=30`,
      dataDir: ':memory:',
      queryTimeoutMs: 300,
    });
    try {
      await expect(store.conversationExists(randomUUID())).rejects.toThrow(/did not answer within 300 ms/);
    } finally {
      await store.close();
      for (const socket of sockets) socket.destroy();
      await closeServer(silent);
    }
  }, 10_000);
});

const postgresUrl = await findTestPostgres();

/** Forwards a local port to Postgres; stop() cuts every connection as a crashed server would. */
class Relay {
  readonly #target: URL;
  readonly #sockets = new Set<Socket>();
  #server: Server | null = null;
  port = 0;

  constructor(target: string) {
    this.#target = new URL(target);
  }

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(Number(this.#target.port || 5432), this.#target.hostname);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.port = await listen(server, this.port);
    this.#server = server;
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    if (this.#server) await closeServer(this.#server);
    this.#server = null;
  }

  url(): string {
    const url = new URL(this.#target.toString());
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }
}

if (postgresUrl) {
  describe('two Postgres replicas starting together', () => {
    it('both run the migrations without error and the schema is created once', async () => {
      const schema = await createTestSchema(postgresUrl);
      const replicas = await Promise.all([1, 2, 3].map(() => createConversationStore({ databaseUrl: schema.url, dataDir: ':memory:' })));
      try {
        await Promise.all(replicas.map((replica) => replica.migrate()));
        const conversationId = randomUUID();
        await replicas[0]?.createConversation(conversationId);
        await expect(replicas[2]?.conversationExists(conversationId)).resolves.toBe(true);
      } finally {
        await Promise.all(replicas.map((replica) => replica.close()));
        await schema.drop();
      }
    }, 20_000);
  });

  describe('the Postgres conversation store when the database goes down and comes back', () => {
    it('fails quickly while the database is down, then works again without a restart', async () => {
      const schema = await createTestSchema(postgresUrl);
      const relay = new Relay(schema.url);
      await relay.start();
      const store = await createConversationStore({ databaseUrl: relay.url(), dataDir: ':memory:', connectTimeoutSeconds: 2 });
      try {
        await store.migrate();
        const before = randomUUID();
        await store.createConversation(before);

        await relay.stop();
        await expect(store.conversationExists(before)).rejects.toBeInstanceOf(ConversationStoreUnavailableError);
        await expect(store.ping(1000)).rejects.toBeInstanceOf(ConversationStoreUnavailableError);

        await relay.start();
        await expect(store.conversationExists(before)).resolves.toBe(true);
        const after = randomUUID();
        await store.createConversation(after);
        await expect(store.conversationExists(after)).resolves.toBe(true);
      } finally {
        await store.close();
        await relay.stop();
        await schema.drop();
      }
    }, 20_000);
  });
} else {
  console.info(`Postgres recovery test not registered (${NO_TEST_POSTGRES_REASON}).`);
}
