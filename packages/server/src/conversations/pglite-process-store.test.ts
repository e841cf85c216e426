import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { processIsAlive } from '@docs-chat/core';
import type { PgliteProcessEvent } from './conversation-store.js';
import { ConversationStoreUnavailableError } from './conversation-store.js';
import { createConversationStore } from './create-conversation-store.js';
import type { PgliteProcessStore } from './pglite-process-store.js';

const HOLD_STORE = fileURLToPath(new URL('../__fixtures__/pglite-process/hold-store.ts', import.meta.url));

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

async function openServerStore(dataDir: string, onEvent?: (event: PgliteProcessEvent) => void): Promise<PgliteProcessStore> {
  return (await createConversationStore({
    dataDir,
    pgliteProcess: true,
    ...(onEvent ? { onPgliteProcessEvent: onEvent } : {}),
  })) as PgliteProcessStore;
}

/** A server process holding the store on DATA_DIR (fixture), with its database process's pid and socket. */
async function startHoldingServer(dataDir: string): Promise<{ holder: ChildProcess; databasePid: number; socketPath: string }> {
  const holder = spawn(process.execPath, ['--import', 'tsx', HOLD_STORE, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [databasePid, socketPath] = await new Promise<[number, string]>((resolve, reject) => {
    let output = '';
    holder.stdout.setEncoding('utf8');
    holder.stdout.on('data', (chunk: string) => {
      output += chunk;
      const match = /database pid (\d+) socket (\S+)\n/.exec(output);
      if (match) resolve([Number(match[1]), match[2]!]);
    });
    holder.once('exit', (code) => reject(new Error(`the holding server exited (${code}) before opening the store: ${output}`)));
  });
  return { holder, databasePid, socketPath };
}

describe("the server's embedded conversation database, in a process of its own", () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-pglite-process-'));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps conversations under DATA_DIR/conversations, outside the server process, and ends with the store', async () => {
    const first = await openServerStore(dataDir);
    const pid = first.processId();
    expect(first.backend).toBe('pglite');
    expect(pid).toEqual(expect.any(Number));
    expect(pid).not.toBe(process.pid);
    await first.migrate();
    const conversationId = randomUUID();
    await first.createConversation(conversationId);
    await first.insertMessage({
      id: randomUUID(),
      conversationId,
      role: 'user',
      content: 'saved elsewhere?',
      mode: 'general',
      status: 'complete',
    });
    await first.close();
    expect(await waitFor(() => !processIsAlive(pid!), 5_000)).toBe(true);
    await expect(access(path.dirname(first.socketPath))).rejects.toThrow();

    // The CLI's way (in this process) reads what the database process wrote: the same folder, the same database.
    const inline = await createConversationStore({ dataDir });
    try {
      const conversation = await inline.getConversation(conversationId);
      expect(conversation?.messages.map((message) => message.content)).toEqual(['saved elsewhere?']);
    } finally {
      await inline.close();
    }
  }, 90_000);

  it('refuses a second server on the same DATA_DIR, and lets the next one in once the first has closed', async () => {
    const first = await openServerStore(dataDir);
    const error: unknown = await openServerStore(dataDir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConversationStoreUnavailableError);
    expect((error as Error).message).toContain(`pid ${process.pid}`);
    expect((error as ConversationStoreUnavailableError).hint).toContain('DATABASE_URL');
    await first.close();
    const second = await openServerStore(dataDir);
    await second.ping(2_000);
    await second.close();
  }, 90_000);

  it("lets a command run beside the server (docs-chat insights) use the server's database, which outlives it", async () => {
    const server = await openServerStore(dataDir);
    try {
      await server.migrate();
      const conversationId = randomUUID();
      await server.createConversation(conversationId);
      await server.insertMessage({
        id: randomUUID(),
        conversationId,
        role: 'user',
        content: 'asked while running',
        mode: 'general',
        status: 'complete',
      });
      // The command's way: the in-process database, which the server's lock refuses, then the server's process.
      const beside = await createConversationStore({ dataDir });
      expect((await beside.getConversation(conversationId))?.messages.map((message) => message.content)).toEqual(['asked while running']);
      await beside.close();
      await server.ping(2_000);
      expect(processIsAlive(server.processId()!)).toBe(true);
    } finally {
      await server.close();
    }
  }, 90_000);

  it('restarts a database process that dies, reports it once, and keeps what was saved', async () => {
    const events: PgliteProcessEvent[] = [];
    const store = await openServerStore(dataDir, (event) => events.push(event));
    try {
      await store.migrate();
      const conversationId = randomUUID();
      await store.createConversation(conversationId);
      const crashed = store.processId()!;
      process.kill(crashed, 'SIGKILL');
      // While it is down a statement fails as "unavailable" (the answer still streams); then it is back.
      expect(await waitFor(() => events.some((event) => event.kind === 'restarted'), 20_000)).toBe(true);
      expect(events.filter((event) => event.kind === 'exited')).toEqual([
        expect.objectContaining({ kind: 'exited', pid: crashed, signal: 'SIGKILL', restartInMs: expect.any(Number) }),
      ]);
      expect(store.processId()).not.toBe(crashed);
      // The driver reconnects on its own; the first statement may still meet the closed connection.
      const insert = () =>
        store.insertMessage({
          id: randomUUID(),
          conversationId,
          role: 'user',
          content: 'after the crash',
          mode: 'general',
          status: 'complete',
        });
      await insert().catch(async (error: unknown) => {
        expect(error).toBeInstanceOf(ConversationStoreUnavailableError);
        await insert();
      });
      const conversation = await store.getConversation(conversationId);
      expect(conversation?.messages.map((message) => message.content)).toEqual(['after the crash']);
    } finally {
      await store.close();
    }
  }, 90_000);

  it('rolls back the transaction of a connection that goes away, and serves the others meanwhile and after', async () => {
    const store = await openServerStore(dataDir);
    const other = postgres({ path: store.socketPath, database: 'postgres', username: 'postgres', max: 1, onnotice: () => undefined });
    try {
      await store.migrate();
      const abandoned = randomUUID();
      let inside!: () => void;
      const insideTransaction = new Promise<void>((resolve) => (inside = resolve));
      const transaction = other
        .begin(async (tx) => {
          await tx`insert into conversations (id) values (${abandoned}::uuid)`;
          inside();
          await new Promise(() => undefined); // never commits
        })
        .catch(() => undefined);
      await insideTransaction;
      // The store's statements wait while another connection is inside a transaction...
      const kept = randomUUID();
      const waiting = store.createConversation(kept);
      // ...until that connection goes away: its transaction is rolled back and the store's statement runs.
      await other.end({ timeout: 0 });
      await transaction;
      await waiting;
      expect(await store.conversationExists(kept)).toBe(true);
      expect(await store.conversationExists(abandoned)).toBe(false);
    } finally {
      await store.close();
    }
  }, 90_000);

  it('says why when the database cannot start, and leaves the folder free for the next try', async () => {
    const brokenDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-pglite-broken-'));
    try {
      // A folder that claims to hold a database of a PostgreSQL version PGlite is not.
      await mkdir(path.join(brokenDir, 'conversations'), { recursive: true });
      await writeFile(path.join(brokenDir, 'conversations', 'PG_VERSION'), '9\n');
      const error: unknown = await openServerStore(brokenDir).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConversationStoreUnavailableError);
      expect((error as Error).message).toMatch(/The embedded conversation database in .*conversations could not start \(.+\)/);
      expect((error as ConversationStoreUnavailableError).hint).toContain('move it aside');
      // The lock is released: the next attempt is refused for the same reason, not for "in use".
      const again: unknown = await openServerStore(brokenDir).catch((caught: unknown) => caught);
      expect((again as Error).message).not.toContain('in use');
    } finally {
      await rm(brokenDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('ends on its own when the server is killed, and the next server opens the folder', async () => {
    const { holder, databasePid, socketPath } = await startHoldingServer(dataDir);
    expect(processIsAlive(databasePid)).toBe(true);
    holder.kill('SIGKILL');
    expect(await waitFor(() => !processIsAlive(databasePid), 10_000)).toBe(true);
    // The killed server could not remove the socket's private folder; the database process did.
    await expect(access(path.dirname(socketPath))).rejects.toThrow();

    const next = await openServerStore(dataDir);
    try {
      await next.ping(2_000);
    } finally {
      await next.close();
    }
  }, 90_000);

  it('removes the socket folder left when the server and its database were both killed outright', async () => {
    const { holder, databasePid, socketPath } = await startHoldingServer(dataDir);
    const holderExited = new Promise((resolve) => holder.once('exit', resolve));
    // Both at once, as a power cut or `kill -9` of the whole group would: neither can clean up.
    process.kill(databasePid, 'SIGKILL');
    holder.kill('SIGKILL');
    await holderExited;
    expect(await waitFor(() => !processIsAlive(databasePid), 10_000)).toBe(true);
    await expect(access(path.dirname(socketPath))).resolves.toBeUndefined();

    const next = await openServerStore(dataDir);
    try {
      await next.ping(2_000);
      await expect(access(path.dirname(socketPath))).rejects.toThrow();
      // The new server's own folder is untouched.
      await expect(access(path.dirname(next.socketPath))).resolves.toBeUndefined();
    } finally {
      await next.close();
    }
  }, 90_000);
});
