/**
 * One behaviour suite for both conversation stores: always on embedded PGlite,
 * and on a real Postgres when TEST_DATABASE_URL is set or 127.0.0.1:5432 answers.
 * Each Postgres run works in a schema of its own so parallel runs never clash.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { SourceRef } from '@docs-chat/core/protocol';
import type { ConversationStore } from './conversation-store.js';
import { ConversationStoreUnavailableError } from './conversation-store.js';
import { createConversationStore } from './create-conversation-store.js';
import { MIGRATIONS } from './migrations.js';
import { openPgliteDatabase, pgliteConversationStore } from './pglite-conversation-store.js';
import type { PgliteProcessStore } from './pglite-process-store.js';
import { createTestSchema, findTestPostgres, NO_TEST_POSTGRES_REASON } from './test-postgres.js';

const postgresUrl = await findTestPostgres();
if (!postgresUrl) {
  console.info(`Conversation store: no Postgres tests registered (${NO_TEST_POSTGRES_REASON}); the same suite runs on PGlite.`);
}

/** A store plus a way to look at its tables directly, for what the store API does not return. */
interface StoreUnderTest {
  store: ConversationStore;
  execute<Row>(text: string, params?: unknown[]): Promise<Row[]>;
  dispose(): Promise<void>;
}

async function openPgliteUnderTest(): Promise<StoreUnderTest> {
  const db = await openPgliteDatabase(':memory:');
  const store = pgliteConversationStore(db);
  return {
    store,
    execute: async <Row>(text: string, params: unknown[] = []) => (await db.query<Row>(text, params)).rows,
    dispose: () => store.close(),
  };
}

async function openPostgresUnderTest(url: string): Promise<StoreUnderTest> {
  const schema = await createTestSchema(url);
  const store = await createConversationStore({ databaseUrl: schema.url, dataDir: ':memory:' });
  const inspector = postgres(schema.url, { max: 1, onnotice: () => undefined });
  return {
    store,
    execute: async <Row>(text: string, params: unknown[] = []) =>
      [...(await inspector.unsafe(text, params as postgres.ParameterOrJSON<never>[]))] as Row[],
    dispose: async () => {
      await store.close();
      await inspector.end();
      await schema.drop();
    },
  };
}

/** PGlite as a server runs it: in a child process, reached over its socket (a second connection inspects). */
async function openPgliteProcessUnderTest(): Promise<StoreUnderTest> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-store-suite-'));
  const store = (await createConversationStore({ dataDir, pgliteProcess: true })) as PgliteProcessStore;
  const inspector = postgres({ path: store.socketPath, database: 'postgres', username: 'postgres', max: 1, onnotice: () => undefined });
  return {
    store,
    execute: async <Row>(text: string, params: unknown[] = []) =>
      [...(await inspector.unsafe(text, params as postgres.ParameterOrJSON<never>[]))] as Row[],
    dispose: async () => {
      await inspector.end();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const backends: [string, () => Promise<StoreUnderTest>][] = [
  ['PGlite', openPgliteUnderTest],
  ['PGlite in its own process', openPgliteProcessUnderTest],
];
if (postgresUrl) backends.push(['Postgres', () => openPostgresUnderTest(postgresUrl)]);

function source(title: string): SourceRef {
  return { file: `${title}.md`, title, heading: 'Usage', heading_path: [title, 'Usage'], url: `/docs/${title}#usage`, score: 0.5 };
}

describe.each(backends)('the conversation store on %s', (_name, open) => {
  let subject: StoreUnderTest;
  let store: ConversationStore;

  beforeAll(async () => {
    subject = await open();
    store = subject.store;
    await store.migrate();
  });

  afterAll(async () => {
    await subject.dispose();
  });

  async function conversationWith(
    messages: { role: 'user' | 'assistant'; content: string; status?: 'pending' | 'complete' | 'interrupted' | 'error' }[],
  ): Promise<{ conversationId: string; ids: string[] }> {
    const conversationId = randomUUID();
    await store.createConversation(conversationId);
    const ids: string[] = [];
    for (const message of messages) {
      const id = randomUUID();
      ids.push(id);
      await store.insertMessage({
        id,
        conversationId,
        role: message.role,
        content: message.content,
        mode: 'general',
        status: message.status ?? 'complete',
      });
    }
    return { conversationId, ids };
  }

  it('runs its migrations a second time without error, keeping the data and recording each version once', async () => {
    const { conversationId } = await conversationWith([{ role: 'user', content: 'kept across migrations' }]);
    await store.migrate();
    await Promise.all([store.migrate(), store.migrate()]);
    const conversation = await store.getConversation(conversationId);
    expect(conversation?.messages.map((message) => message.content)).toEqual(['kept across migrations']);
    const versions = await subject.execute<{ version: number }>('select version from schema_migrations order by version');
    expect(versions.map((row) => Number(row.version))).toEqual(MIGRATIONS.map((migration) => migration.version));
  });

  it('reads an answer stored before protocol 2.0 with its sources in the 2.0 casing (heading_path)', async () => {
    const { conversationId, ids } = await conversationWith([{ role: 'assistant', content: 'An old answer [1].' }]);
    const { heading_path: headingPath, ...rest } = source('Install');
    // The JSON as a literal: the two drivers encode a JSON parameter differently. It is this test's own text.
    await subject.execute(`update messages set sources = '${JSON.stringify([{ ...rest, headingPath }])}'::jsonb where id = $1`, [ids[0]]);
    const conversation = await store.getConversation(conversationId);
    expect(conversation?.messages[0]?.sources).toEqual([source('Install')]);
  });

  it('returns a conversation with its messages in the order they were written', async () => {
    const contents = Array.from({ length: 12 }, (_, index) => `message ${index}`);
    const { conversationId, ids } = await conversationWith(
      contents.map((content, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', content })),
    );
    const conversation = await store.getConversation(conversationId);
    expect(conversation?.id).toBe(conversationId);
    expect(conversation?.messages.map((message) => message.id)).toEqual(ids);
    expect(conversation?.messages.map((message) => message.content)).toEqual(contents);
    expect(Number.isNaN(Date.parse(conversation?.createdAt ?? ''))).toBe(false);
  });

  it('keeps the written order when several messages share the same timestamp', async () => {
    const { conversationId, ids } = await conversationWith([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'second' },
      { role: 'user', content: 'third' },
      { role: 'assistant', content: 'fourth' },
    ]);
    // Reversed ids would sort first if the order came from ids; the shared timestamp leaves only insertion order.
    await subject.execute("update messages set created_at = '2026-01-01T00:00:00Z' where conversation_id = $1", [conversationId]);
    const conversation = await store.getConversation(conversationId);
    expect(conversation?.messages.map((message) => message.id)).toEqual(ids);
  });

  it('stores a question and a feedback reason holding NUL characters, dropping only the NULs', async () => {
    const { conversationId, ids } = await conversationWith([
      { role: 'user', content: 'why\u0000 does it fail?' },
      { role: 'assistant', content: 'because\u0000' },
    ]);
    const conversation = await store.getConversation(conversationId);
    expect(conversation?.messages.map((message) => message.content)).toEqual(['why does it fail?', 'because']);
    await expect(store.addFeedback({ messageId: ids[1] as string, rating: 'down', reason: 'wrong\u0000' })).resolves.toBe('stored');
  });

  it('answers null for a conversation that does not exist or an id that is not a UUID', async () => {
    await expect(store.getConversation(randomUUID())).resolves.toBeNull();
    await expect(store.getConversation('not-a-uuid')).resolves.toBeNull();
    await expect(store.conversationExists(randomUUID())).resolves.toBe(false);
    await expect(store.conversationExists('42')).resolves.toBe(false);
  });

  it('knows a conversation exists once created, and creating it again changes nothing', async () => {
    const { conversationId } = await conversationWith([{ role: 'user', content: 'hello' }]);
    await store.createConversation(conversationId);
    await expect(store.conversationExists(conversationId)).resolves.toBe(true);
    expect((await store.getConversation(conversationId))?.messages).toHaveLength(1);
  });

  it('gives the last three question and answer pairs oldest first, without the question being answered now', async () => {
    const { conversationId } = await conversationWith([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2' },
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: 'a3' },
      { role: 'user', content: 'q4' },
      { role: 'assistant', content: 'a4' },
      { role: 'user', content: 'q5 (being answered)' },
      { role: 'assistant', content: '', status: 'pending' },
    ]);
    await expect(store.recentTurns(conversationId, 3)).resolves.toEqual([
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2' },
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: 'a3' },
      { role: 'user', content: 'q4' },
      { role: 'assistant', content: 'a4' },
    ]);
  });

  it('leaves out of the history the questions whose answer is still pending or failed', async () => {
    const { conversationId } = await conversationWith([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2 whose answer never finished' },
      { role: 'assistant', content: 'half', status: 'pending' },
      { role: 'user', content: 'q3 that failed' },
      { role: 'assistant', content: '', status: 'error' },
      { role: 'user', content: 'q4' },
      { role: 'assistant', content: 'a4 cut short', status: 'interrupted' },
      { role: 'user', content: 'q5 (being answered)' },
    ]);
    await expect(store.recentTurns(conversationId, 3)).resolves.toEqual([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q4' },
      { role: 'assistant', content: 'a4 cut short' },
    ]);
    await expect(store.recentTurns(conversationId, 0)).resolves.toEqual([]);
  });

  it('stores the partial answer, its status, finish reason and sources when generation is interrupted', async () => {
    const { conversationId, ids } = await conversationWith([
      { role: 'user', content: 'How do I configure the store?' },
      { role: 'assistant', content: '', status: 'pending' },
    ]);
    const answerId = ids[1] ?? '';
    const sources = [source('configuring-your-store'), source('usage-guide')];
    await store.finishMessage(answerId, {
      content: 'Call configureStore with',
      status: 'interrupted',
      sources,
      finishReason: 'interrupted',
      usage: { prompt_tokens: 120, completion_tokens: 4, total_tokens: 124 },
    });
    const answer = (await store.getConversation(conversationId))?.messages[1];
    expect(answer).toMatchObject({
      id: answerId,
      role: 'assistant',
      content: 'Call configureStore with',
      status: 'interrupted',
      finishReason: 'interrupted',
      mode: 'general',
      sources,
    });
    const usage = await subject.execute<{ usage: unknown }>('select usage from messages where id = $1', [answerId]);
    expect(usage[0]?.usage).toEqual({ prompt_tokens: 120, completion_tokens: 4, total_tokens: 124 });
  });

  it('stores several answers final states in one call, each with its own text, status, sources and usage', async () => {
    const first = await conversationWith([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: '', status: 'pending' },
    ]);
    const second = await conversationWith([
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: '', status: 'pending' },
    ]);
    const untouched = await conversationWith([
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: '', status: 'pending' },
    ]);
    // Quotes, backslashes, a NUL and a lone surrogate: none may break the batch or the other answers in it.
    const awkward = 'He said "use \\n here" \u0000and\ud800 left';
    await store.finishMessages([
      {
        id: first.ids[1] ?? '',
        update: {
          content: 'Call configureStore.',
          status: 'complete',
          sources: [source('configuring-your-store')],
          finishReason: 'stop',
          usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
        },
      },
      {
        id: second.ids[1] ?? '',
        update: { content: awkward, status: 'interrupted', sources: [], finishReason: 'interrupted', usage: null },
      },
    ]);
    const firstAnswer = (await store.getConversation(first.conversationId))?.messages[1];
    expect(firstAnswer).toMatchObject({
      content: 'Call configureStore.',
      status: 'complete',
      finishReason: 'stop',
      sources: [source('configuring-your-store')],
    });
    const secondAnswer = (await store.getConversation(second.conversationId))?.messages[1];
    expect(secondAnswer).toMatchObject({ content: 'He said "use \\n here" and\ufffd left', status: 'interrupted', sources: [] });
    expect((await store.getConversation(untouched.conversationId))?.messages[1]).toMatchObject({ content: '', status: 'pending' });
    const usage = await subject.execute<{ usage: unknown }>('select usage from messages where id = $1', [first.ids[1]]);
    expect(usage[0]?.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
    const none = await subject.execute<{ usage: unknown }>('select usage from messages where id = $1', [second.ids[1]]);
    expect(none[0]?.usage).toBeNull();
  });

  it('saves several answers text so far in one call, leaving alone an answer that has finished', async () => {
    const streaming = await conversationWith([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: '', status: 'pending' },
    ]);
    const alsoStreaming = await conversationWith([
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: '', status: 'pending' },
    ]);
    const finished = await conversationWith([
      { role: 'user', content: 'q3' },
      { role: 'assistant', content: 'the whole answer', status: 'complete' },
    ]);
    await store.saveProgresses([
      { id: streaming.ids[1] ?? '', content: 'Call configure' },
      { id: alsoStreaming.ids[1] ?? '', content: 'A "lock" is\u0000 held' },
      // A progress save that lands after the final save must not cut the answer back.
      { id: finished.ids[1] ?? '', content: 'the who' },
    ]);
    expect((await store.getConversation(streaming.conversationId))?.messages[1]).toMatchObject({
      content: 'Call configure',
      status: 'pending',
    });
    expect((await store.getConversation(alsoStreaming.conversationId))?.messages[1]).toMatchObject({ content: 'A "lock" is held' });
    expect((await store.getConversation(finished.conversationId))?.messages[1]).toMatchObject({
      content: 'the whole answer',
      status: 'complete',
    });
  });

  it('keeps the sources given with a new message and the selection mode', async () => {
    const conversationId = randomUUID();
    await store.createConversation(conversationId);
    const id = randomUUID();
    await store.insertMessage({
      id,
      conversationId,
      role: 'user',
      content: 'explain this',
      mode: 'selection',
      sources: [source('a')],
      status: 'complete',
    });
    const message = (await store.getConversation(conversationId))?.messages[0];
    expect(message).toMatchObject({ mode: 'selection', sources: [source('a')], finishReason: null, conversationId });
  });

  it('stores a rating on an answer, replaces it when the reader changes their mind, and shows it with the conversation', async () => {
    const { conversationId, ids } = await conversationWith([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
    const answerId = ids[1] ?? '';
    await expect(store.addFeedback({ messageId: answerId, rating: 'up' })).resolves.toBe('stored');
    await expect(store.addFeedback({ messageId: answerId, rating: 'down', reason: 'cites the wrong page' })).resolves.toBe('stored');
    const rows = await subject.execute<{ rating: string; reason: string | null }>(
      'select rating, reason from feedback where message_id = $1',
      [answerId],
    );
    expect(rows).toEqual([{ rating: 'down', reason: 'cites the wrong page' }]);
    const messages = (await store.getConversation(conversationId))?.messages;
    expect(messages?.map((message) => message.rating)).toEqual([undefined, 'down']);
  });

  it('takes a rating back when the reader un-presses it: the rating is removed and the conversation shows none', async () => {
    const { conversationId, ids } = await conversationWith([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
    const answerId = ids[1] ?? '';
    await expect(store.addFeedback({ messageId: answerId, rating: 'up' })).resolves.toBe('stored');
    await expect(store.addFeedback({ messageId: answerId, rating: null })).resolves.toBe('stored');
    const rows = await subject.execute<{ rating: string }>('select rating from feedback where message_id = $1', [answerId]);
    expect(rows).toEqual([]);
    expect((await store.getConversation(conversationId))?.messages.map((message) => message.rating)).toEqual([undefined, undefined]);
    // Taking back a rating that is not there is fine (a second click, or a rating that never arrived).
    await expect(store.addFeedback({ messageId: answerId, rating: null })).resolves.toBe('stored');
    await expect(store.addFeedback({ messageId: randomUUID(), rating: null })).resolves.toBe('unknown_message');
    await expect(store.addFeedback({ messageId: ids[0] ?? '', rating: null })).resolves.toBe('unknown_message');
  });

  it('refuses feedback on a message that does not exist or is not an answer', async () => {
    const { ids } = await conversationWith([{ role: 'user', content: 'q' }]);
    await expect(store.addFeedback({ messageId: randomUUID(), rating: 'up' })).resolves.toBe('unknown_message');
    await expect(store.addFeedback({ messageId: ids[0] ?? '', rating: 'up' })).resolves.toBe('unknown_message');
    await expect(store.addFeedback({ messageId: 'nope', rating: 'down' })).resolves.toBe('unknown_message');
  });

  it('refuses a message for a conversation that does not exist without calling the database unavailable', async () => {
    const error: unknown = await store
      .insertMessage({
        id: randomUUID(),
        conversationId: randomUUID(),
        role: 'user',
        content: 'orphan',
        mode: 'general',
        status: 'complete',
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ConversationStoreUnavailableError);
    expect((error as { code?: string }).code).toBe('23503');
  });

  it('starts a first question in one step: a new conversation holding the question, then the pending answer', async () => {
    const conversationId = randomUUID();
    const questionId = randomUUID();
    const answerId = randomUUID();
    await store.startTurn({
      conversationId,
      newConversation: true,
      mode: 'general',
      question: { id: questionId, content: 'what is a slice?' },
      answerId,
    });
    await expect(store.conversationExists(conversationId)).resolves.toBe(true);
    const messages = (await store.getConversation(conversationId))?.messages;
    expect(messages?.map((message) => [message.id, message.role, message.content, message.status, message.mode])).toEqual([
      [questionId, 'user', 'what is a slice?', 'complete', 'general'],
      [answerId, 'assistant', '', 'pending', 'general'],
    ]);
  });

  it('keeps the text saved while an answer streams, and marks a dead pending answer interrupted with that text', async () => {
    const conversationId = randomUUID();
    const dead = randomUUID();
    const running = randomUUID();
    await store.startTurn({
      conversationId,
      newConversation: true,
      mode: 'general',
      question: { id: randomUUID(), content: 'q1' },
      answerId: dead,
    });
    await store.startTurn({
      conversationId,
      newConversation: false,
      mode: 'general',
      question: { id: randomUUID(), content: 'q2' },
      answerId: running,
    });
    await store.saveProgress(dead, 'Install the package');
    await store.saveProgress(dead, 'Install the package from npm.');
    // Not stale yet for a store shared with other servers.
    await expect(store.interruptStalePending(60_000, [])).resolves.toBe(0);
    await expect(store.interruptStalePending(0, [running])).resolves.toBeGreaterThanOrEqual(1);
    const answers = (await store.getConversation(conversationId))?.messages.filter((message) => message.role === 'assistant');
    expect(answers?.map((message) => [message.id, message.content, message.status, message.finishReason])).toEqual([
      [dead, 'Install the package from npm.', 'interrupted', 'interrupted'],
      [running, '', 'pending', null],
    ]);
    // A finished answer is not changed by a late progress save.
    await store.saveProgress(dead, 'late');
    expect((await store.getConversation(conversationId))?.messages[1]?.content).toBe('Install the package from npm.');
  });

  it('starts a follow-up after the earlier messages of its conversation and gives it their history', async () => {
    const { conversationId, ids } = await conversationWith([
      { role: 'user', content: 'what is a slice?' },
      { role: 'assistant', content: 'A slice is a reducer with its actions.' },
    ]);
    const questionId = randomUUID();
    const answerId = randomUUID();
    await store.startTurn({
      conversationId,
      newConversation: false,
      mode: 'selection',
      question: { id: questionId, content: 'and this?' },
      answerId,
    });
    const messages = (await store.getConversation(conversationId))?.messages;
    expect(messages?.map((message) => message.id)).toEqual([...ids, questionId, answerId]);
    expect(messages?.[2]?.mode).toBe('selection');
    await expect(store.recentTurns(conversationId, 3)).resolves.toEqual([
      { role: 'user', content: 'what is a slice?' },
      { role: 'assistant', content: 'A slice is a reducer with its actions.' },
    ]);
  });

  it('gives a follow-up the same history whether it is read before, during or after the turn is stored', async () => {
    const { conversationId } = await conversationWith([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2' },
    ]);
    const expected = [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2' },
    ];
    const before = await store.recentTurns(conversationId, 3);
    const turn = {
      conversationId,
      newConversation: false,
      mode: 'general' as const,
      question: { id: randomUUID(), content: 'q3' },
      answerId: randomUUID(),
    };
    const [, during] = await Promise.all([store.startTurn(turn), store.recentTurns(conversationId, 3)]);
    const after = await store.recentTurns(conversationId, 3);
    expect(before).toEqual(expected);
    expect(during).toEqual(expected);
    expect(after).toEqual(expected);
  });

  it('stores nothing of a turn whose conversation does not exist, refusing it as a statement error', async () => {
    const conversationId = randomUUID();
    const questionId = randomUUID();
    const error: unknown = await store
      .startTurn({
        conversationId,
        newConversation: false,
        mode: 'general',
        question: { id: questionId, content: 'orphan' },
        answerId: randomUUID(),
      })
      .catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(ConversationStoreUnavailableError);
    expect((error as { code?: string }).code).toBe('23503');
    await expect(subject.execute('select id from messages where id = $1', [questionId])).resolves.toEqual([]);
  });

  it('deletes a conversation with its messages, ratings and shares, and says so only the first time', async () => {
    const { conversationId, ids } = await conversationWith([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a' },
    ]);
    await store.addFeedback({ messageId: ids[1] as string, rating: 'up' });
    const shareId = `share-${randomUUID()}`;
    await expect(store.createShare(conversationId, shareId)).resolves.toBe(true);
    await expect(store.deleteConversation(conversationId)).resolves.toBe(true);
    await expect(store.getConversation(conversationId)).resolves.toBeNull();
    await expect(store.getSharedConversation(shareId)).resolves.toBeNull();
    await expect(subject.execute('select id from messages where conversation_id = $1', [conversationId])).resolves.toEqual([]);
    await expect(subject.execute('select message_id from feedback where message_id = $1', [ids[1]])).resolves.toEqual([]);
    await expect(subject.execute('select id from conversation_shares where id = $1', [shareId])).resolves.toEqual([]);
    await expect(store.deleteConversation(conversationId)).resolves.toBe(false);
    await expect(store.deleteConversation('not-a-uuid')).resolves.toBe(false);
  });

  it('opens a shared conversation by its share id, and refuses a share of a conversation that does not exist', async () => {
    const { conversationId } = await conversationWith([
      { role: 'user', content: 'shared question' },
      { role: 'assistant', content: 'shared answer' },
    ]);
    const shareId = `share-${randomUUID()}`;
    await store.createShare(conversationId, shareId);
    const shared = await store.getSharedConversation(shareId);
    expect(shared?.messages.map((message) => message.content)).toEqual(['shared question', 'shared answer']);
    await expect(store.getSharedConversation('no-such-share')).resolves.toBeNull();
    await expect(store.createShare(randomUUID(), `share-${randomUUID()}`)).resolves.toBe(false);
    await expect(store.createShare('not-a-uuid', `share-${randomUUID()}`)).resolves.toBe(false);
  });

  it('removes the conversations idle since before the cutoff, keeping one started long ago but written to since', async () => {
    const idle = await conversationWith([{ role: 'user', content: 'old and idle' }]);
    const active = await conversationWith([{ role: 'user', content: 'old but still going' }]);
    const recent = await conversationWith([{ role: 'user', content: 'new' }]);
    const longAgo = '2020-01-01T00:00:00Z';
    await subject.execute('update conversations set created_at = $1 where id = any($2::uuid[])', [
      longAgo,
      [idle.conversationId, active.conversationId],
    ]);
    await subject.execute('update messages set created_at = $1, updated_at = $1 where conversation_id = $2', [
      longAgo,
      idle.conversationId,
    ]);
    const cutoff = new Date('2021-01-01T00:00:00Z');
    let removed = 0;
    for (
      let batch = await store.deleteConversationsOlderThan(cutoff, 1);
      batch > 0;
      batch = await store.deleteConversationsOlderThan(cutoff, 1)
    )
      removed += batch;
    expect(removed).toBe(1);
    await expect(store.conversationExists(idle.conversationId)).resolves.toBe(false);
    await expect(store.conversationExists(active.conversationId)).resolves.toBe(true);
    await expect(store.conversationExists(recent.conversationId)).resolves.toBe(true);
  });

  it('lists the pages readers highlighted most, at most the limit asked, and counts highlight questions stored without a page', async () => {
    const period = { since: new Date(Date.now() - 3_600_000), topQuestionTexts: 10, gaps: 5, downVoted: 5, selectionPages: 2 };
    const before = await store.readInsights(period);
    const highlight = async (page?: { url: string; title: string }): Promise<void> => {
      const conversationId = randomUUID();
      const question = { id: randomUUID(), content: 'What does this mean?' };
      await store.startTurn({
        conversationId,
        newConversation: true,
        mode: 'selection',
        question,
        answerId: randomUUID(),
        ...(page ? { page } : {}),
      });
    };
    const pages = ['install', 'usage', 'faq'].map((name) => ({
      url: `https://docs.example.com/highlights/${name}`,
      title: `Highlights ${name}`,
    }));
    for (const [page, times] of [
      [pages[0], 3],
      [pages[1], 2],
      [pages[2], 1],
    ] as const)
      for (let turn = 0; turn < times; turn += 1) await highlight(page);
    await highlight();
    await highlight();
    const after = await store.readInsights(period);
    expect(after.selectionPages).toEqual([
      { url: pages[0]?.url, title: 'Highlights install', questions: 3 },
      { url: pages[1]?.url, title: 'Highlights usage', questions: 2 },
    ]);
    expect(after.selectionWithoutPage - before.selectionWithoutPage).toBe(2);
  });

  it('answers a ping while the database is up', async () => {
    await expect(store.ping(2000)).resolves.toBeUndefined();
  });
});
