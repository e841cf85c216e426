/** The conversation store in embedded PGlite, for installs without DATABASE_URL. */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import type { ConversationStore } from './conversation-store.js';
import { lockConversationDataDir } from './data-dir-lock.js';
import type { DataDirLock } from './data-dir-lock.js';
import { toStoreError } from './database-errors.js';
import type { SqlClient } from './sql-client.js';
import { SqlConversationStore } from './sql-conversation-store.js';

export interface PgliteConversationStoreOptions {
  /** DATA_DIR; the database lives in `${dataDir}/conversations`, or in memory when dataDir is ':memory:'. */
  dataDir: string;
  queryTimeoutMs?: number;
}

export function pgliteLocation(dataDir: string): string {
  return dataDir === ':memory:' ? 'memory://' : path.join(dataDir, 'conversations');
}

/**
 * PGlite is one connection in one process: every call, transactions included,
 * goes through this queue so that two requests never interleave their statements.
 */
class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work, work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

function transactionClient(tx: Transaction): SqlClient {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
      return (await tx.query<Row>(text, [...params])).rows;
    },
    transaction: (work) => work(transactionClient(tx)),
  };
}

/** Opens (creating when needed) the PGlite database for a DATA_DIR. */
export async function openPgliteDatabase(dataDir: string): Promise<PGlite> {
  const location = pgliteLocation(dataDir);
  try {
    if (location !== 'memory://') await mkdir(location, { recursive: true });
    return await PGlite.create(location);
  } catch (error) {
    throw toStoreError(error, 'pglite');
  }
}

/** The store over an open PGlite database; closing the store closes the database (and releases its folder lock). */
export function pgliteConversationStore(db: PGlite, options: { queryTimeoutMs?: number; lock?: DataDirLock } = {}): ConversationStore {
  const queue = new SerialQueue();
  const client: SqlClient = {
    query: <Row>(text: string, params: readonly unknown[] = []) => queue.run(async () => (await db.query<Row>(text, [...params])).rows),
    transaction: (work) => queue.run(() => db.transaction((tx) => work(transactionClient(tx)))),
  };
  return new SqlConversationStore({
    backend: 'pglite',
    client,
    queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
    close: () =>
      queue.run(async () => {
        try {
          await db.close();
        } finally {
          await options.lock?.release();
        }
      }),
  });
}

export async function createPgliteConversationStore(options: PgliteConversationStoreOptions): Promise<ConversationStore> {
  if (options.dataDir === ':memory:') {
    const db = await openPgliteDatabase(options.dataDir);
    return pgliteConversationStore(db, options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs });
  }
  const lock = await lockConversationDataDir(options.dataDir);
  try {
    const db = await openPgliteDatabase(options.dataDir);
    return pgliteConversationStore(db, {
      lock,
      ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
    });
  } catch (error) {
    await lock.release();
    throw error;
  }
}
