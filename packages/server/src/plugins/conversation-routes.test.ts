import type { MetaEvent } from '@docs-chat/core/protocol';
import type { ConversationStore } from '../conversations/conversation-store.js';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import { createTestSchema, findTestPostgres, NO_TEST_POSTGRES_REASON, type TestSchema } from '../conversations/test-postgres.js';
import { answerText, createTestIndex, postChat, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';
import type { ConversationBody } from './conversation-routes.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

let index: TestIndex;

beforeAll(async () => {
  index = await createTestIndex();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await index?.remove();
});

/** The same behaviour on every conversation backend. */
function describeConversationsOn(
  backend: string,
  openStore: () => Promise<{ store: ConversationStore; dispose: () => Promise<void> }>,
): void {
  describe(`conversations and feedback on ${backend}`, () => {
    let server: TestServer;
    let dispose: () => Promise<void>;

    beforeAll(async () => {
      const opened = await openStore();
      dispose = opened.dispose;
      server = await startTestServer({ index, store: opened.store, env: { RATE_LIMIT_MAX: '1000' } });
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await server?.close();
      await dispose?.();
    });

    async function ask(message: string, conversationId?: string): Promise<{ meta: MetaEvent; answer: string }> {
      const reply = await postChat(server.url, {
        message,
        mode: 'general',
        ...(conversationId ? { conversation_id: conversationId } : {}),
      });
      return { meta: reply.events[0] as MetaEvent, answer: answerText(reply.events) };
    }

    it('returns a conversation with its messages in order so the widget can resume it', async () => {
      const first = await ask('How do I install Tidewater?');
      const second = await ask('What does openHarbor return?', first.meta.conversation_id);
      const response = await fetch(`${server.url}/conversations/${first.meta.conversation_id}`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as ConversationBody;
      expect(body.id).toBe(first.meta.conversation_id);
      expect(body.messages.map((message) => [message.role, message.content])).toEqual([
        ['user', 'How do I install Tidewater?'],
        ['assistant', first.answer],
        ['user', 'What does openHarbor return?'],
        ['assistant', second.answer],
      ]);
      expect(body.messages[1]).toMatchObject({ id: first.meta.message_id, status: 'complete', finish_reason: 'stop', mode: 'general' });
      expect(body.messages[1]?.sources.length).toBeGreaterThan(0);
    });

    it('answers 404 for an unknown conversation and 400 for an id that is not a UUID', async () => {
      const unknown = await fetch(`${server.url}/conversations/6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b`);
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('conversation_not_found');
      const malformed = await fetch(`${server.url}/conversations/not-a-uuid`);
      expect(malformed.status).toBe(400);
    });

    it('stores a rating on an answer, and a second rating replaces the first', async () => {
      const { meta } = await ask('What is a lock?');
      const rate = (body: unknown) =>
        fetch(`${server.url}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const up = await rate({ message_id: meta.message_id, rating: 'up' });
      expect(up.status).toBe(201);
      expect(await up.json()).toEqual({ message_id: meta.message_id, rating: 'up', stored: true });
      const down = await rate({ message_id: meta.message_id, rating: 'down', reason: 'It missed the async part.' });
      expect(down.status).toBe(201);
      const resumed = (await (await fetch(`${server.url}/conversations/${meta.conversation_id}`)).json()) as ConversationBody;
      expect(resumed.messages[1]).toMatchObject({ id: meta.message_id, rating: 'down' });
      expect(resumed.messages[0]?.rating).toBeUndefined();
    });

    it('takes a rating back with "rating": null (200), so the resumed conversation shows none', async () => {
      const { meta } = await ask('What is a lock?');
      const rate = (body: unknown) =>
        fetch(`${server.url}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await rate({ message_id: meta.message_id, rating: 'up' })).status).toBe(201);
      const takenBack = await rate({ message_id: meta.message_id, rating: null });
      expect(takenBack.status).toBe(200);
      expect(await takenBack.json()).toEqual({ message_id: meta.message_id, rating: null, stored: true });
      const resumed = (await (await fetch(`${server.url}/conversations/${meta.conversation_id}`)).json()) as ConversationBody;
      expect(resumed.messages[1]?.id).toBe(meta.message_id);
      expect(resumed.messages[1]?.rating).toBeUndefined();
      const unknown = await rate({ message_id: '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b', rating: null });
      expect(unknown.status).toBe(404);
    });

    it('refuses feedback for an unknown answer with 404 and a malformed one with 400', async () => {
      const post = (body: unknown) =>
        fetch(`${server.url}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const unknown = await post({ message_id: '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b', rating: 'up' });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('message_not_found');
      const malformed = await post({ message_id: 'x', rating: 'meh', reason: 42, extra: true });
      expect(malformed.status).toBe(400);
      const details = ((await malformed.json()) as { error: { details: string[] } }).error.details.join(' ');
      expect(details).toMatch(/"message_id" must be the UUID/);
      expect(details).toMatch(/"rating" must be "up", "down" or null/);
      expect(details).toMatch(/"reason" must be a string/);
      expect(details).toMatch(/Unknown field "extra"/);
      const notObject = await post([1, 2]);
      expect(notObject.status).toBe(400);
    });
  });
}

describeConversationsOn('embedded PGlite', async () => {
  const store = await createConversationStore({ dataDir: ':memory:' });
  return { store, dispose: () => store.close() };
});

const postgresUrl = await findTestPostgres();
if (postgresUrl) {
  describeConversationsOn('the real Postgres', async () => {
    const schema: TestSchema = await createTestSchema(postgresUrl);
    const store = await createConversationStore({ databaseUrl: schema.url, dataDir: index.dataDir });
    return {
      store,
      dispose: async () => {
        await store.close();
        await schema.drop();
      },
    };
  });
} else {
  console.warn(`Skipping the Postgres conversation route tests: ${NO_TEST_POSTGRES_REASON}.`);
}

describe('conversation routes while the database is down', () => {
  it('answer 503 with a message saying conversations cannot be read right now', async () => {
    const { createPostgresConversationStore } = await import('../conversations/postgres-conversation-store.js');
    const store = createPostgresConversationStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/test', connectTimeoutSeconds: 1 });
    const server = await startTestServer({ index, store });
    try {
      const read = await fetch(`${server.url}/conversations/6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b`);
      expect(read.status).toBe(503);
      expect(((await read.json()) as { error: { code: string } }).error.code).toBe('conversation_store_unavailable');
      const rate = await fetch(`${server.url}/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message_id: '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b', rating: 'up' }),
      });
      expect(rate.status).toBe(503);
    } finally {
      await server.close();
      await store.close();
    }
  });
});
