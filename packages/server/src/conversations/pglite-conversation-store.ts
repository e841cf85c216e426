/** The conversation store in embedded PGlite, for installs without DATABASE_URL. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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

/**
 * PGlite's start parameters with a 16 MB buffer pool instead of its 160 MB: conversations are small rows read
 * by key, and the pool lives in the server's own memory. Measured on a reopened database after 2,000 inserts of
 * 2 KB: 216 MB resident against 345 MB (issue 16's budget of 300 MB per server process).
 */
export const PGLITE_START_PARAMS: readonly string[] = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/** Creating a database takes about 5 s on two cores; a minute means something is wrong. */
const CREATE_TIMEOUT_MS = 60_000;

/**
 * Runs PGlite's initdb for a new folder in a child process (pglite-create-database.mjs). Run in the server's
 * process it left 730-780 MB resident against 170-220 MB after reopening a database, and in a worker thread
 * still about 190 MB more once the thread had ended (what the thread's C heap and the compiled WebAssembly
 * kept); a process gives all of it back when it exits. Once per DATA_DIR, about 5 s.
 */
async function createPgliteDatabaseInChildProcess(location: string): Promise<void> {
  const script = fileURLToPath(new URL('./pglite-create-database.mjs', import.meta.url));
  try {
    // execFile without the server's own flags (a profiler, tsx): a plain Node.js running one script.
    await promisify(execFile)(process.execPath, [script, location, JSON.stringify(PGLITE_START_PARAMS)], {
      timeout: CREATE_TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`PGlite could not create the database in ${location}${stderr ? `: ${stderr.slice(0, 500)}` : ''}`, { cause: error });
  }
}

/** Creates the PGlite database in a folder unless it holds one already. */
export async function ensurePgliteDatabase(location: string): Promise<void> {
  await mkdir(location, { recursive: true });
  if (!existsSync(path.join(location, 'PG_VERSION'))) await createPgliteDatabaseInChildProcess(location);
}

/** Opens (creating when needed) the PGlite database for a DATA_DIR. */
export async function openPgliteDatabase(dataDir: string): Promise<PGlite> {
  const location = pgliteLocation(dataDir);
  try {
    if (location !== 'memory://') await ensurePgliteDatabase(location);
    return await PGlite.create(location, { startParams: [...PGLITE_START_PARAMS] });
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
