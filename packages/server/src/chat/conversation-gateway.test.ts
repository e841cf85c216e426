import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MetaEvent } from '@docs-chat/core/protocol';
import { ConversationStoreUnavailableError } from '../conversations/conversation-store.js';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import type { PgliteProcessStore } from '../conversations/pglite-process-store.js';
import { ConversationGateway, NOT_ANSWERING_PROBE_MS } from './conversation-gateway.js';
import { createTestSchema, findTestPostgres, NO_TEST_POSTGRES_REASON, type TestSchema } from '../conversations/test-postgres.js';
import type { HealthReport } from '../health/health-check.js';
import { createTestIndex, eventually, postChat, startTestServer, type TestIndex } from '../testing/test-server.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

/**
 * A TCP relay in front of the real Postgres that can be switched off and on,
 * like a database restarting under a running server.
 */
async function startSwitchableRelay(target: {
  host: string;
  port: number;
}): Promise<{ port: number; up: boolean; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const state = { up: false };
  const server: Server = createServer((client) => {
    if (!state.up) {
      client.destroy();
      return;
    }
    const upstream = connect(target);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    get up() {
      return state.up;
    },
    set up(value: boolean) {
      state.up = value;
      if (!value) for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('a conversation database that accepts work but stops answering', () => {
  it('holds up only the questions asked before the first deadline passed, then fails at once, and saves again once it answers', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-gateway-stalled-'));
    // The server's own embedded database, in its process; stopped (SIGSTOP) it keeps its socket open and says nothing.
    const store = (await createConversationStore({ dataDir, pgliteProcess: true })) as PgliteProcessStore;
    const lines: string[] = [];
    const logger = {
      info: (_details: object, message: string) => lines.push(`info: ${message}`),
      warn: (_details: object, message: string) => lines.push(`warn: ${message}`),
      error: (_details: object, message: string) => lines.push(`error: ${message}`),
    };
    const deadlineMs = 600;
    const gateway = new ConversationGateway(store, logger, deadlineMs);
    try {
      // Migrating a new database takes longer than this test's short deadline on a busy machine.
      await store.migrate();
      expect(await gateway.migrate()).toBe(true);
      const databasePid = store.processId()!;
      process.kill(databasePid, 'SIGSTOP');
      try {
        const firstStarted = performance.now();
        await expect(gateway.run((conversations) => conversations.createConversation(randomUUID()))).rejects.toBeInstanceOf(
          ConversationStoreUnavailableError,
        );
        expect(performance.now() - firstStarted).toBeGreaterThanOrEqual(deadlineMs - 50);
        // Each later question would otherwise wait out the deadline before its answer starts.
        const laterStarted = performance.now();
        for (let question = 0; question < 5; question += 1) {
          await expect(gateway.run((conversations) => conversations.createConversation(randomUUID()))).rejects.toThrow(/has not answered/);
        }
        expect(performance.now() - laterStarted).toBeLessThan(deadlineMs / 2);
        // Still silent after a probe or two: still failing at once.
        await new Promise((resolve) => setTimeout(resolve, NOT_ANSWERING_PROBE_MS * 2));
        await expect(gateway.run((conversations) => conversations.createConversation(randomUUID()))).rejects.toThrow(/has not answered/);
      } finally {
        process.kill(databasePid, 'SIGCONT');
      }
      const id = randomUUID();
      await eventually(async () => {
        try {
          await gateway.run((conversations) => conversations.createConversation(id));
          return true;
        } catch {
          return false;
        }
      }, 15_000);
      await expect(gateway.run((conversations) => conversations.conversationExists(id))).resolves.toBe(true);
      expect(lines.filter((line) => /stopped answering|answers again/.test(line))).toEqual([
        'warn: the conversation database stopped answering: answers stream without being saved until it answers again',
        'info: the conversation database answers again: answers are saved',
      ]);
    } finally {
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('answers that end together', () => {
  it(
    'are saved in fewer statements than answers, each with its own final text, and a stopping gateway writes the last ones',
    async () => {
      const store = await createConversationStore({ dataDir: ':memory:' });
      const statements: number[] = [];
      const finishMessages = store.finishMessages.bind(store);
      store.finishMessages = async (answers) => {
        statements.push(answers.length);
        await finishMessages(answers);
      };
      const gateway = new ConversationGateway(store, { info: () => undefined, warn: () => undefined, error: () => undefined });
      await gateway.migrate();
      const answers = Array.from({ length: 12 }, (_, index) => ({ conversationId: randomUUID(), answerId: randomUUID(), index }));
      for (const answer of answers) {
        await store.startTurn({
          conversationId: answer.conversationId,
          newConversation: true,
          mode: 'general',
          question: { id: randomUUID(), content: `question ${answer.index}` },
          answerId: answer.answerId,
        });
      }
      // Answers ending a few milliseconds apart, as under load.
      const saves: Promise<void>[] = [];
      for (const answer of answers) {
        saves.push(
          gateway.finishAnswer(answer.answerId, {
            content: `answer ${answer.index}`,
            status: 'complete',
            sources: [],
            finishReason: 'stop',
            usage: null,
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await Promise.all(saves);
      expect(statements.reduce((total, size) => total + size, 0)).toBe(12);
      expect(statements.length).toBeLessThan(12);
      for (const answer of answers) {
        const stored = (await store.getConversation(answer.conversationId))?.messages[1];
        expect(stored).toMatchObject({ id: answer.answerId, content: `answer ${answer.index}`, status: 'complete' });
      }

      // Saves still waiting when the server stops (one on the wire, one queued behind it) are written before
      // the database closes.
      const late = [
        { conversationId: randomUUID(), answerId: randomUUID() },
        { conversationId: randomUUID(), answerId: randomUUID() },
      ];
      for (const [index, answer] of late.entries()) {
        await store.startTurn({
          conversationId: answer.conversationId,
          newConversation: true,
          mode: 'general',
          question: { id: randomUUID(), content: `late question ${index}` },
          answerId: answer.answerId,
        });
      }
      const finish = (index: number): Promise<void> =>
        gateway.finishAnswer(late[index]!.answerId, {
          content: `late answer ${index}`,
          status: 'complete',
          sources: [],
          finishReason: 'stop',
          usage: null,
        });
      const firstLate = finish(0);
      await new Promise((resolve) => setImmediate(resolve));
      const secondLate = finish(1);
      const read = store.getConversation.bind(store);
      const atClose: (string | undefined)[] = [];
      const closeStore = store.close.bind(store);
      store.close = async () => {
        for (const answer of late) atClose.push((await read(answer.conversationId))?.messages[1]?.content);
        await closeStore();
      };
      await gateway.close();
      await Promise.all([firstLate, secondLate]);
      expect(atClose).toEqual(['late answer 0', 'late answer 1']);
    },
    SETUP_TIMEOUT_MS,
  );
});

const postgresUrl = await findTestPostgres();

if (postgresUrl) {
  describe('a server whose database comes back after an outage', () => {
    let index: TestIndex;
    let schema: TestSchema;

    beforeAll(async () => {
      index = await createTestIndex();
      schema = await createTestSchema(postgresUrl);
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await schema?.drop();
      await index?.remove();
    });

    it('starts degraded, then migrates and saves conversations again once Postgres answers', async () => {
      const real = new URL(postgresUrl);
      const relay = await startSwitchableRelay({ host: real.hostname, port: Number(real.port || 5432) });
      const viaRelay = new URL(schema.url);
      viaRelay.hostname = '127.0.0.1';
      viaRelay.port = String(relay.port);
      const store = await createConversationStore({ databaseUrl: viaRelay.toString(), dataDir: index.dataDir });
      const server = await startTestServer({ index, store, env: { RATE_LIMIT_MAX: '1000' } });
      try {
        const health = async () => (await (await fetch(`${server.url}/health`)).json()) as HealthReport;
        expect((await health()).status).toBe('degraded');
        const unsaved = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
        expect((unsaved.events[0] as MetaEvent).persisted).toBe(false);

        relay.up = true;
        await eventually(async () => (await health()).services.postgres.status === 'up', 10_000);
        let saved: MetaEvent | undefined;
        await eventually(async () => {
          const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
          saved = reply.events[0] as MetaEvent;
          if (saved.persisted) return true;
          // The store is retried at most every two seconds after a failure; do not hammer it.
          await new Promise((resolve) => setTimeout(resolve, 250));
          return false;
        }, 10_000);
        expect((await store.getConversation(saved!.conversation_id))?.messages).toHaveLength(2);

        relay.up = false;
        const during = await postChat(server.url, { message: 'What is a lock?', mode: 'general' });
        expect(during.status).toBe(200);
        expect(during.events.at(-1)?.type).toBe('done');
        expect((during.events[0] as MetaEvent).persisted).toBe(false);
      } finally {
        await server.close();
        await store.close();
        await relay.close();
      }
    }, 60_000);

    it('does not leave an answer pending when its final save fails because the database dropped mid-stream', async () => {
      const real = new URL(postgresUrl);
      const relay = await startSwitchableRelay({ host: real.hostname, port: Number(real.port || 5432) });
      relay.up = true;
      const viaRelay = new URL(schema.url);
      viaRelay.hostname = '127.0.0.1';
      viaRelay.port = String(relay.port);
      const store = await createConversationStore({ databaseUrl: viaRelay.toString(), dataDir: index.dataDir });
      const direct = await createConversationStore({ databaseUrl: schema.url, dataDir: index.dataDir });
      // "chat answer started" (which names the message) is logged at debug.
      const server = await startTestServer({ index, store, env: { RATE_LIMIT_MAX: '1000', LOG_LEVEL: 'debug' } });
      try {
        server.gemini.setDelay(150);
        const answering = postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
        let messageId = '';
        let conversationId = '';
        await eventually(async () => {
          const logs = server.logs.entries().find((entry) => entry.msg === 'chat answer started');
          if (!logs) return false;
          messageId = String(logs.messageId);
          conversationId = String(logs.conversationId);
          return true;
        }, 10_000);
        // Progress is saved while the answer streams.
        await eventually(async () => ((await direct.getConversation(conversationId))?.messages[1]?.content.length ?? 0) > 0, 10_000);
        relay.up = false;
        const reply = await answering;
        expect(reply.events.some((event) => event.type === 'warning' && event.code === 'conversation_not_saved')).toBe(true);
        expect((await direct.getConversation(conversationId))?.messages[1]?.status).toBe('pending');

        relay.up = true;
        server.gemini.setDelay(0);
        // The next call that reaches the database writes the final save kept in memory.
        await eventually(async () => {
          await fetch(`${server.url}/conversations/${conversationId}`);
          const stored = (await direct.getConversation(conversationId))?.messages[1];
          if (stored?.status === 'complete') return true;
          await new Promise((resolve) => setTimeout(resolve, 250));
          return false;
        }, 15_000);
        const stored = (await direct.getConversation(conversationId))?.messages[1];
        expect(stored).toMatchObject({ id: messageId, status: 'complete' });
        expect(stored?.content.length).toBeGreaterThan(20);
      } finally {
        await server.close();
        await store.close();
        await direct.close();
        await relay.close();
      }
    }, 60_000);
  });
} else {
  console.warn(`Skipping the database outage test: ${NO_TEST_POSTGRES_REASON}.`);
}
