import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ConversationStoreUnavailableError } from './conversation-store.js';
import { createConversationStore } from './create-conversation-store.js';
import { openPgliteDatabase } from './pglite-conversation-store.js';

const FRESH_PGLITE = fileURLToPath(new URL('../__fixtures__/memory/open-fresh-pglite.ts', import.meta.url));

describe('the embedded PGlite conversation store', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-conversations-'));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps conversations under DATA_DIR/conversations across a restart', async () => {
    const first = await createConversationStore({ dataDir });
    expect(first.backend).toBe('pglite');
    await first.migrate();
    const conversationId = randomUUID();
    await first.createConversation(conversationId);
    await first.insertMessage({
      id: randomUUID(),
      conversationId,
      role: 'user',
      content: 'still here?',
      mode: 'general',
      status: 'complete',
    });
    await first.close();
    expect(await readdir(path.join(dataDir, 'conversations'))).toContain('PG_VERSION');

    const second = await createConversationStore({ dataDir });
    try {
      await second.migrate();
      const conversation = await second.getConversation(conversationId);
      expect(conversation?.messages.map((message) => message.content)).toEqual(['still here?']);
    } finally {
      await second.close();
    }
  }, 60_000);

  it('opens a new database with a small buffer pool, without keeping the memory its creation took', async () => {
    const freshDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-conversations-fresh-'));
    try {
      const db = await openPgliteDatabase(freshDir);
      try {
        expect(await readdir(path.join(freshDir, 'conversations'))).toContain('PG_VERSION');
        expect((await db.query<{ shared_buffers: string }>('show shared_buffers')).rows[0]?.shared_buffers).toBe('16MB');
      } finally {
        await db.close();
      }
    } finally {
      await rm(freshDir, { recursive: true, force: true });
    }
    // A process of its own, so other tests' memory does not count. Measured there (tsx included): the database
    // created in the same process, 756 MB resident (874 MB with PGlite's 160 MB buffer pool); created in a worker
    // thread, 407 MB; created in a child process and reopened with the small pool, 239 MB.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', FRESH_PGLITE], { timeout: 60_000 });
    expect((JSON.parse(stdout) as { rssMb: number }).rssMb).toBeLessThan(350);
  }, 90_000);

  // The next two reuse the DATA_DIR of the first test: reopening a database is much faster than creating one.
  it('refuses a second opening of the same DATA_DIR while the first is open, with a hint about DATABASE_URL', async () => {
    const first = await createConversationStore({ dataDir });
    const error: unknown = await createConversationStore({ dataDir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConversationStoreUnavailableError);
    expect((error as Error).message).toContain(`pid ${process.pid}`);
    expect((error as ConversationStoreUnavailableError).hint).toContain('DATABASE_URL');
    await first.close();
    const second = await createConversationStore({ dataDir });
    await second.migrate();
    await second.close();
  }, 60_000);

  it('takes over the lock left by a server that died', async () => {
    await mkdir(path.join(dataDir, 'locks'), { recursive: true });
    // A pid far above any pid_max: no such process runs.
    const owner = { pid: 2 ** 30, host: hostname(), startedAt: '2026-01-01T00:00:00Z' };
    await writeFile(path.join(dataDir, 'locks', 'conversations.lock'), JSON.stringify(owner));
    const store = await createConversationStore({ dataDir });
    await store.migrate();
    await store.close();
    await expect(readdir(path.join(dataDir, 'locks'))).resolves.toEqual([]);
  }, 60_000);

  it('runs concurrent requests one after the other on its single connection', async () => {
    const store = await createConversationStore({ dataDir: ':memory:' });
    try {
      await store.migrate();
      const conversationId = randomUUID();
      await store.createConversation(conversationId);
      const ids = Array.from({ length: 20 }, () => randomUUID());
      await Promise.all(
        ids.map((id, index) =>
          Promise.all([
            store.insertMessage({ id, conversationId, role: 'assistant', content: `answer ${index}`, mode: 'general', status: 'pending' }),
            store.migrate(),
          ]),
        ),
      );
      const conversation = await store.getConversation(conversationId);
      expect(new Set(conversation?.messages.map((message) => message.id))).toEqual(new Set(ids));
    } finally {
      await store.close();
    }
  }, 60_000);

  it('reports itself unavailable once closed', async () => {
    const store = await createConversationStore({ dataDir: ':memory:' });
    await store.close();
    await expect(store.ping(500)).rejects.toMatchObject({ code: 'conversation_store_unavailable' });
  }, 60_000);
});
