/**
 * The server's embedded conversation database (no DATABASE_URL) in a child process: PGlite opens
 * DATA_DIR/conversations there and speaks the Postgres wire protocol on a private local socket
 * (pglite-process.mjs), and the server reaches it through the same driver and SQL as PostgreSQL.
 *
 * Why not in the server's process, as before: PGlite runs each statement synchronously on the caller's thread,
 * so every saved answer held the event loop, and its WebAssembly memory counted in the server's. On the chat
 * benchmark at 200 readers (benchmarks.md, "PGlite in a process of its own") the first token's p95 was 191 ms
 * against 15-20 ms now, the event loop's worst p99 second 215 ms against 11-15, and CPU per answer 3.95 ms
 * against 2.75-3.05 for both processes (issue 16: 150 ms, 20 ms, 2.0 ms).
 *
 * The child ends when the server closes the store, and on its own when the server dies (its IPC channel
 * closes). If it dies while the server runs, statements fail as "database unavailable" (answers still stream)
 * and it is started again after a pause that grows while it keeps failing; each exit is reported once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { processIsAlive } from '@docs-chat/core';
import type { ConversationStore, PgliteProcessEvent } from './conversation-store.js';
import { ConversationStoreUnavailableError } from './conversation-store.js';
import { lockConversationDataDir } from './data-dir-lock.js';
import { ensurePgliteDatabase, PGLITE_START_PARAMS, pgliteLocation } from './pglite-conversation-store.js';
import { driverSettings, storeOverDriver } from './postgres-conversation-store.js';

/** Opening a database takes 1-2 s on two cores; a minute means something is wrong. */
const START_TIMEOUT_MS = 60_000;
/** A database process that was asked to stop and has not after this long is killed. */
const STOP_TIMEOUT_MS = 10_000;
/** How long a new server waits for the process of a server that died to finish closing the same folder. */
const PREVIOUS_HOLDER_WAIT_MS = 10_000;
/** The private socket folders are made under the system's temporary folder with this prefix. */
const SOCKET_FOLDER_PREFIX = 'docs-chat-db-';
/** Pauses before restarting a process that died: doubled after each failure up to the maximum. */
const RESTART_DELAY_MS = { first: 500, max: 30_000 } as const;
/** A process that ran this long before dying starts the pauses over. */
const HEALTHY_RUN_MS = 60_000;

export interface PgliteProcessStoreOptions {
  /** DATA_DIR: the database lives in `${dataDir}/conversations`. */
  dataDir: string;
  queryTimeoutMs?: number;
  /** Told when the database process dies unexpectedly and when it is back. */
  onEvent?: (event: PgliteProcessEvent) => void;
}

/** The store, with what tests and diagnostics need to reach the process behind it. */
export interface PgliteProcessStore extends ConversationStore {
  readonly socketPath: string;
  /** The database process's pid (a new one after a restart). */
  processId(): number | undefined;
}

/** The running database process its file names (`pid`, then the socket, one per line); null when none runs. */
async function runningDatabaseProcess(pidFile: string): Promise<{ pid: number; socketPath: string | undefined } | null> {
  const recorded = await recordedDatabaseProcess(pidFile);
  return recorded && processIsAlive(recorded.pid) ? recorded : null;
}

/** What the process file says, whether or not that process still runs; null when there is no valid file. */
async function recordedDatabaseProcess(pidFile: string): Promise<{ pid: number; socketPath: string | undefined } | null> {
  const [pidLine, socketPath] = (await readFile(pidFile, 'utf8').catch(() => '')).split('\n');
  const pid = Number.parseInt(pidLine ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  return { pid, socketPath: socketPath || undefined };
}

/**
 * Removes the socket folder a database process left when it and its server were both killed outright
 * (SIGKILL, a power cut): its pid file still names the socket, and no process holds it any more. Only a
 * folder of ours under the temporary folder is touched (`docs-chat-db-*`), whatever the file says.
 */
async function removeLeftSocketFolder(pidFile: string): Promise<void> {
  const recorded = await recordedDatabaseProcess(pidFile);
  if (!recorded?.socketPath || processIsAlive(recorded.pid)) return;
  const folder = path.dirname(recorded.socketPath);
  if (path.dirname(folder) !== os.tmpdir() || !path.basename(folder).startsWith(SOCKET_FOLDER_PREFIX)) return;
  await rm(folder, { recursive: true, force: true });
  await rm(pidFile, { force: true });
}

/** One driver connection to a database process's socket (PGlite runs one statement at a time; the driver pipelines). */
function socketConnection(socketPath: string, connectTimeoutSeconds: number): postgres.Sql {
  return postgres({
    ...driverSettings(1),
    path: socketPath,
    database: 'postgres',
    username: 'postgres',
    connect_timeout: connectTimeoutSeconds,
  });
}

/** Waits for the database process of a server that died (its pid file names it) to finish closing the folder. */
async function waitForPreviousHolder(pidFile: string, location: string): Promise<void> {
  const deadline = Date.now() + PREVIOUS_HOLDER_WAIT_MS;
  for (;;) {
    const pid = (await runningDatabaseProcess(pidFile))?.pid;
    if (pid === undefined) return;
    if (Date.now() > deadline) {
      throw new ConversationStoreUnavailableError(`The embedded conversation database in ${location} is still open in process ${pid}.`, {
        hint: `Stop process ${pid} (a docs-chat database process left by an earlier server), or delete ${pidFile} if no such process runs.`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Supervisor {
  readonly socketPath: string;
  pid(): number | undefined;
  stop(): Promise<void>;
}

async function startSupervisor(location: string, pidFile: string, onEvent: PgliteProcessStoreOptions['onEvent']): Promise<Supervisor> {
  const script = fileURLToPath(new URL('./pglite-process.mjs', import.meta.url));
  // A private folder (mkdtemp makes it 0700) holds the socket, so other users of the host cannot connect;
  // under the system's temporary folder because a socket path must stay under about 100 bytes.
  const socketDir = process.platform === 'win32' ? undefined : await mkdtemp(path.join(os.tmpdir(), SOCKET_FOLDER_PREFIX));
  const socketPath = socketDir ? path.join(socketDir, 'pglite.sock') : `\\\\.\\pipe\\docs-chat-db-${process.pid}-${Date.now()}`;
  let child: ChildProcess | undefined;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | undefined;
  let delayMs: number = RESTART_DELAY_MS.first;

  const launch = async (): Promise<ChildProcess> => {
    await waitForPreviousHolder(pidFile, location);
    // A plain Node.js without the server's own flags (a profiler, tsx), as for the database's creation.
    const started = spawn(process.execPath, [script, location, socketPath, pidFile, JSON.stringify(PGLITE_START_PARAMS)], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    started.stderr?.setEncoding('utf8');
    started.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        clearTimeout(timer);
        started.off('message', onMessage).off('exit', onEarlyExit).off('error', onError);
        if (!error) return resolve();
        started.kill('SIGKILL');
        reject(error);
      };
      const fail = (reason: string): void =>
        settle(
          new ConversationStoreUnavailableError(`The embedded conversation database in ${location} could not start (${reason}).`, {
            hint: `Check that DATA_DIR is writable and has free space (the reason in parentheses is what PGlite reported). If ${location} was written by another PGlite version or is damaged, move it aside and start again: a new, empty database is created.`,
          }),
        );
      const onMessage = (message: { type?: string }): void => {
        if (message?.type === 'ready') settle();
      };
      const onEarlyExit = (code: number | null, signal: NodeJS.Signals | null): void =>
        fail(`${stderr.trim().slice(-500) || 'no message'}; exit ${code ?? signal}`);
      const onError = (error: Error): void => fail(error.message);
      const timer = setTimeout(() => fail(`no answer within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
      started.on('message', onMessage).once('exit', onEarlyExit).once('error', onError);
    });
    const startedAt = Date.now();
    started.once('exit', (code, signal) => {
      if (stopping) return;
      if (Date.now() - startedAt > HEALTHY_RUN_MS) delayMs = RESTART_DELAY_MS.first;
      onEvent?.({ kind: 'exited', pid: started.pid, code, signal, detail: stderr.trim().slice(-500), restartInMs: delayMs });
      scheduleRestart();
    });
    // Neither the process nor its channel keeps the server running; the server closes the store when it stops.
    started.unref();
    started.channel?.unref();
    return started;
  };

  const scheduleRestart = (): void => {
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (stopping) return;
      launch().then(
        (next) => {
          // The store was closed while this one started.
          if (stopping) return void next.kill('SIGTERM');
          child = next;
          onEvent?.({ kind: 'restarted', pid: next.pid });
        },
        (error: unknown) => {
          onEvent?.({ kind: 'restart_failed', detail: error instanceof Error ? error.message : String(error), restartInMs: delayMs });
          scheduleRestart();
        },
      );
      delayMs = Math.min(delayMs * 2, RESTART_DELAY_MS.max);
    }, delayMs);
    restartTimer.unref();
  };

  try {
    child = await launch();
  } catch (error) {
    if (socketDir) await rm(socketDir, { recursive: true, force: true });
    throw error;
  }

  return {
    socketPath,
    pid: () => child?.pid,
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const running = child;
      if (running && running.exitCode === null && running.signalCode === null) {
        const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
        running.kill('SIGTERM');
        const killTimer = setTimeout(() => running.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(killTimer);
      }
      if (socketDir) await rm(socketDir, { recursive: true, force: true });
    },
  };
}

function processFile(dataDir: string): string {
  return path.join(dataDir, 'locks', 'conversations-process.pid');
}

/**
 * The store over the database process of a server running on this DATA_DIR, for a command run beside it
 * (`docs-chat insights`); null when no such process answers. Closing it leaves the server's database running.
 */
export async function connectToRunningPgliteProcess(dataDir: string): Promise<ConversationStore | null> {
  const socketPath = (await runningDatabaseProcess(processFile(dataDir)))?.socketPath;
  if (!socketPath) return null;
  const store = storeOverDriver(socketConnection(socketPath, 2), { backend: 'pglite' });
  try {
    await store.ping(2_000);
    return store;
  } catch {
    await store.close().catch(() => undefined);
    return null;
  }
}

/** Opens (creating when needed) DATA_DIR's conversation database in a child process and returns the store over it. */
export async function createPgliteProcessConversationStore(options: PgliteProcessStoreOptions): Promise<PgliteProcessStore> {
  const location = pgliteLocation(options.dataDir);
  const lock = await lockConversationDataDir(options.dataDir);
  let supervisor: Supervisor | undefined;
  try {
    await ensurePgliteDatabase(location);
    await removeLeftSocketFolder(processFile(options.dataDir));
    supervisor = await startSupervisor(location, processFile(options.dataDir), options.onEvent);
  } catch (error) {
    await lock.release();
    if (error instanceof ConversationStoreUnavailableError) throw error;
    throw new ConversationStoreUnavailableError(
      `The embedded conversation database in ${location} could not start (${error instanceof Error ? error.message : String(error)}).`,
      { hint: 'Check that DATA_DIR is writable and has free space.', cause: error },
    );
  }
  const running = supervisor;
  const store = storeOverDriver(socketConnection(running.socketPath, 5), {
    backend: 'pglite',
    ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
    afterClose: async () => {
      try {
        await running.stop();
      } finally {
        await lock.release();
      }
    },
  });
  return Object.assign(store, { socketPath: running.socketPath, processId: () => running.pid() });
}
