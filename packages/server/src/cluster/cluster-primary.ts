/**
 * WORKERS > 1: the primary process of `docs-chat serve` forks that many server
 * processes (node:cluster) that share the port, and only looks after them.
 * State they share lives in PostgreSQL (conversations, rate limits) and in the
 * index on disk, which each process opens for reading; an admin ingest in one
 * process makes the others reopen it.
 *
 * A process that dies is replaced after a back-off (1 s, doubling to 30 s
 * while it keeps dying, reset once one has run for a minute), with one log line
 * per death. Its unfinished answers are then marked interrupted. A process that
 * fails to start is not retried: the primary stops everything and prints why.
 *
 * The process that takes a scrape of /metrics asks the primary, which gathers
 * every process's figures for it to add up (metrics/cluster-metrics.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { ClusterMetrics } from '../metrics/cluster-metrics.js';
import type { ProcessMetrics } from '../metrics/server-metrics.js';
import { PendingReplies } from './pending-replies.js';

/** Messages between the primary and the server processes (over the cluster's IPC channel). */
export type WorkerMessage =
  | { type: 'docs-chat:ready'; url: string }
  | { type: 'docs-chat:startup-failed'; message: string }
  | { type: 'docs-chat:index-changed' }
  | { type: 'docs-chat:running-answers'; requestId: number; ids: string[] }
  /** A process took a scrape of /metrics and asks for everyone's figures. */
  | { type: 'docs-chat:metrics-request'; requestId: number }
  | { type: 'docs-chat:metrics-snapshot'; requestId: number; metrics: ProcessMetrics };

export type PrimaryMessage =
  | { type: 'docs-chat:stop' }
  | { type: 'docs-chat:reload-index' }
  | { type: 'docs-chat:list-running'; requestId: number }
  | { type: 'docs-chat:interrupt-orphans'; aliveElsewhere: string[]; olderThanMs: number }
  | { type: 'docs-chat:collect-metrics'; requestId: number }
  /** The answer to `docs-chat:metrics-request`, with the same requestId. */
  | { type: 'docs-chat:cluster-metrics'; requestId: number; metrics: ClusterMetrics };

/** Environment variable telling a forked process which one it is (0-based). */
export const WORKER_INDEX_VARIABLE = 'DOCS_CHAT_WORKER_INDEX';

export interface ClusterOptions {
  workers: number;
  /** The environment of the server processes (.env and flags applied). */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** First restart delay; doubles per death in a row up to `maxRestartDelayMs`. */
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
  /** A process that ran this long resets the back-off. */
  stableAfterMs?: number;
  /** A process still running this long after being asked to stop is killed (SHUTDOWN_GRACE_MS plus closing). */
  stopTimeoutMs?: number;
}

export interface RunningCluster {
  /** `http://host:port`, once every process listens. */
  url: string;
  /** Asks every process to stop gracefully; resolves when all have exited. */
  stop(): Promise<void>;
  /** Resolves when the cluster ended by itself (exit code), e.g. after too many deaths. */
  ended: Promise<number>;
}

/** How long the primary waits for each process to answer a question (running answers, metrics) before counting it out. */
const ASK_TIMEOUT_MS = 2000;

function send(worker: Worker, message: PrimaryMessage): void {
  if (worker.isConnected()) worker.send(message);
}

export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const { logger } = options;
  const restartDelayMs = options.restartDelayMs ?? 1000;
  const maxRestartDelayMs = options.maxRestartDelayMs ?? 30_000;
  const stableAfterMs = options.stableAfterMs ?? 60_000;
  const live = new Map<number, { worker: Worker; index: number; startedAt: number; ready: boolean }>();
  let stopping = false;
  let deathsInARow = 0;
  const pendingReplies = new PendingReplies<WorkerMessage>();
  let endCluster: (code: number) => void = () => undefined;
  const ended = new Promise<number>((resolve) => {
    endCluster = resolve;
  });

  const fork = (index: number): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const worker = cluster.fork({ ...options.env, [WORKER_INDEX_VARIABLE]: String(index) });
      const entry = { worker, index, startedAt: Date.now(), ready: false };
      live.set(worker.id, entry);
      worker.on('message', (message: WorkerMessage) => {
        switch (message.type) {
          case 'docs-chat:ready':
            entry.ready = true;
            resolve(message.url);
            break;
          case 'docs-chat:startup-failed':
            reject(new Error(message.message));
            break;
          case 'docs-chat:index-changed':
            for (const other of live.values()) if (other.worker !== worker) send(other.worker, { type: 'docs-chat:reload-index' });
            break;
          case 'docs-chat:running-answers':
          case 'docs-chat:metrics-snapshot':
            pendingReplies.settle(message.requestId, message);
            break;
          case 'docs-chat:metrics-request':
            void askEveryProcess({ type: 'docs-chat:collect-metrics' }).then((replies) => {
              const parts = replies.flatMap((reply) => (reply.type === 'docs-chat:metrics-snapshot' ? [reply.metrics] : []));
              const processes = [...live.values()].filter((other) => other.ready).length;
              send(worker, { type: 'docs-chat:cluster-metrics', requestId: message.requestId, metrics: { parts, processes } });
            });
            break;
        }
      });
      worker.once('exit', (code, signal) => {
        live.delete(worker.id);
        if (!entry.ready) {
          reject(new Error(`server process ${index + 1} exited before it was ready (${signal ?? `code ${code}`})`));
          return;
        }
        if (stopping) return;
        onDeath(entry.index, entry.startedAt, code, signal);
      });
    });

  /** Asks every ready process one question over IPC; the replies of those that answered within ASK_TIMEOUT_MS. */
  const askEveryProcess = async (
    question: { type: 'docs-chat:list-running' } | { type: 'docs-chat:collect-metrics' },
  ): Promise<WorkerMessage[]> => {
    const replies = [...live.values()]
      .filter((entry) => entry.ready)
      .map((entry) => pendingReplies.ask((requestId) => send(entry.worker, { ...question, requestId }), ASK_TIMEOUT_MS));
    return (await Promise.all(replies)).filter((reply) => reply !== undefined);
  };

  /** The answers every live process is writing (a process that does not answer in time counts as none). */
  const runningEverywhere = async (): Promise<string[]> =>
    (await askEveryProcess({ type: 'docs-chat:list-running' })).flatMap((reply) =>
      reply.type === 'docs-chat:running-answers' ? reply.ids : [],
    );

  const recoverOrphans = async (): Promise<void> => {
    const askedAt = Date.now();
    const alive = await runningEverywhere();
    const target = [...live.values()].find((entry) => entry.ready);
    // Answers started after `askedAt` are younger than this and left alone; older ones nobody is writing died.
    if (target)
      send(target.worker, { type: 'docs-chat:interrupt-orphans', aliveElsewhere: alive, olderThanMs: Date.now() - askedAt + 1000 });
  };

  const onDeath = (index: number, startedAt: number, code: number | null, signal: string | null): void => {
    if (Date.now() - startedAt >= stableAfterMs) deathsInARow = 0;
    deathsInARow += 1;
    const delayMs = Math.min(maxRestartDelayMs, restartDelayMs * 2 ** (deathsInARow - 1));
    logger.error(
      { worker: index + 1, exitCode: code, signal, restartInMs: delayMs, deathsInARow },
      'a server process died; its running answers are marked interrupted and it is restarted after a pause',
    );
    setTimeout(() => {
      if (stopping) return;
      fork(index).then(
        () => recoverOrphans(),
        (error: unknown) => {
          // A replacement that cannot start will not start on the next try either.
          logger.fatal(
            { worker: index + 1, err: { message: (error as Error).message } },
            'a server process could not be restarted: stopping',
          );
          void stop().then(() => endCluster(1));
        },
      );
    }, delayMs).unref();
  };

  const stop = async (): Promise<void> => {
    stopping = true;
    const exits = [...live.values()].map(
      (entry) =>
        new Promise<void>((resolve) => {
          if (entry.worker.isDead()) {
            resolve();
            return;
          }
          const timer = setTimeout(() => entry.worker.process.kill('SIGKILL'), options.stopTimeoutMs ?? 30_000);
          entry.worker.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          send(entry.worker, { type: 'docs-chat:stop' });
        }),
    );
    await Promise.all(exits);
  };

  let url: string;
  try {
    const urls = await Promise.all(Array.from({ length: options.workers }, (_, index) => fork(index)));
    url = urls[0]!;
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop, ended };
}
