/**
 * `docs-chat serve`: reads the configuration (.env included), starts the
 * server and stops it gracefully on SIGINT/SIGTERM. A wrong configuration,
 * a missing index or a rejected model key ends the command with a message
 * that says what to fix, and exit code 1 (2 for a wrong WORKERS, checked
 * before anything starts). WORKERS > 1 starts a cluster (cluster-primary.ts).
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import {
  type PrimaryMessage,
  type RunningCluster,
  startCluster,
  WORKER_INDEX_VARIABLE,
  type WorkerMessage,
} from './cluster/cluster-primary.js';
import { isDocsChatError } from './core-api.js';
import { loadConfig, loadDotEnvFile, readWorkerCount } from './config.js';
import { pluginTimeoutFor } from './app.js';
import { createLogger } from './logging.js';
import { isLlmError } from './llm/chat-model.js';
import { ConversationStoreUnavailableError } from './conversations/conversation-store.js';
import { startServer, type RunningServer } from './server-runtime.js';
import type { ClusterMetrics } from './metrics/cluster-metrics.js';
import { PendingReplies } from './cluster/pending-replies.js';
import { heapGrowthSetByOperator, startMemorySoftLimit } from './memory-soft-limit.js';

/** Longer than the primary's own wait for each process (2 s), so a slow process is counted out rather than failing the scrape. */
const CLUSTER_METRICS_TIMEOUT_MS = 5000;

const USAGE = `Usage: docs-chat serve [--port N] [--host ADDRESS]

Starts the chat server (POST /chat, GET /health, ...). Every setting comes from the
environment or .env; see .env.example. --port and --host override PORT and HOST.
WORKERS=auto|N runs N server processes (auto: one per CPU core; needs DATABASE_URL).`;

export async function runServeCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const effective = { ...env };
  loadDotEnvFile(undefined, effective);
  if (parsed.values.port !== undefined) effective.PORT = parsed.values.port;
  if (parsed.values.host !== undefined) effective.HOST = parsed.values.host;

  // A process forked by the cluster primary (WORKERS > 1).
  const workerIndex = env[WORKER_INDEX_VARIABLE];
  if (cluster.isWorker && workerIndex !== undefined) return runClusterWorker(Number(workerIndex), effective);

  let workers: number;
  try {
    workers = readWorkerCount(effective, availableParallelism());
  } catch (error) {
    process.stderr.write(`docs-chat serve: ${startupFailure(error)}\n`);
    return 2;
  }
  if (workers > 1) return runClusterPrimary(workers, effective);

  let server: RunningServer;
  let config;
  try {
    config = loadConfig(effective);
    server = await startServer(config, { env: effective });
  } catch (error) {
    process.stderr.write(`docs-chat serve: ${startupFailure(error)}\n`);
    return 1;
  }
  return serveUntilStopped(server, config.server.memorySoftLimitMb).exitCode;
}

/** MEMORY_SOFT_LIMIT_MB, watched by each server process on its own (memory-soft-limit.ts); returns how to stop. */
function watchMemory(server: RunningServer, limitMb: number): () => void {
  if (limitMb === 0) return () => undefined;
  if (heapGrowthSetByOperator()) {
    server.logger.info(
      { memorySoftLimitMb: limitMb },
      'MEMORY_SOFT_LIMIT_MB is not applied: node was started with --heap-growing-percent, which is kept as given',
    );
    return () => undefined;
  }
  const limit = startMemorySoftLimit({
    limitMb,
    onChange: (engaged, rssMb, collection) =>
      server.logger.info(
        {
          rssMb,
          memorySoftLimitMb: limitMb,
          ...(collection ? { rssAfterCollectionMb: collection.rssAfterMb, pauseMs: collection.pauseMs } : {}),
        },
        engaged
          ? 'resident memory is near MEMORY_SOFT_LIMIT_MB: collected garbage once, and V8 now collects it sooner (a little more CPU per answer)'
          : 'resident memory is well below MEMORY_SOFT_LIMIT_MB again: V8 sizes its heap on its own',
      ),
  });
  return () => limit.stop();
}

/**
 * Stops on SIGINT/SIGTERM (or `stop()`): no new requests, running answers may finish. A second signal
 * means "now" (exit code 130). Watches MEMORY_SOFT_LIMIT_MB while it serves.
 */
function serveUntilStopped(server: RunningServer, memorySoftLimitMb: number): { exitCode: Promise<number>; stop(): void } {
  const stopWatching = watchMemory(server, memorySoftLimitMb);
  let stop: (signal: NodeJS.Signals) => void = () => undefined;
  let stopping = false;
  const served = new Promise<number>((resolve) => {
    stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        // A second Ctrl-C means "now".
        server.logger.warn({ signal }, 'second stop signal: exiting without waiting');
        resolve(130);
        return;
      }
      stopping = true;
      server.logger.info({ signal }, 'stopping: no new requests, running answers may finish');
      server.close().then(
        () => resolve(0),
        (error: unknown) => {
          server.logger.error({ err: { message: (error as Error).message } }, 'error while stopping');
          resolve(1);
        },
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return {
    exitCode: served.finally(stopWatching),
    stop: () => {
      if (!stopping) stop('SIGTERM');
    },
  };
}

/** The primary of WORKERS > 1: checks the configuration once, forks the server processes and looks after them. */
async function runClusterPrimary(workers: number, effective: NodeJS.ProcessEnv): Promise<number> {
  let config;
  try {
    config = loadConfig(effective);
  } catch (error) {
    process.stderr.write(`docs-chat serve: ${startupFailure(error)}\n`);
    return 1;
  }
  const logger = createLogger(config.server.logLevel, undefined);
  logger.info(
    { workers },
    `starting ${workers} server processes (WORKERS=${effective.WORKERS?.trim()}); conversations and rate limits are shared through DATABASE_URL`,
  );
  let running: RunningCluster;
  try {
    running = await startCluster({
      workers,
      env: effective,
      logger,
      stopTimeoutMs: pluginTimeoutFor(config.server.shutdownGraceMs) + 5000,
    });
  } catch (error) {
    process.stderr.write(`docs-chat serve: ${(error as Error).message}\n`);
    return 1;
  }
  logger.info({ url: running.url, workers }, 'docs-chat server ready');
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        resolve(130);
        return;
      }
      stopping = true;
      logger.info({ signal }, 'stopping every server process: no new requests, running answers may finish');
      void running.stop().then(() => resolve(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    void running.ended.then(resolve);
  });
}

/** One server process of a cluster: serves, and answers the primary's messages. */
async function runClusterWorker(workerIndex: number, effective: NodeJS.ProcessEnv): Promise<number> {
  const toPrimary = (message: WorkerMessage): void => {
    process.send?.(message);
  };
  const metricsReplies = new PendingReplies<ClusterMetrics>();
  const collectMetrics = async (): Promise<ClusterMetrics> => {
    const metrics = await metricsReplies.ask(
      (requestId) => toPrimary({ type: 'docs-chat:metrics-request', requestId }),
      CLUSTER_METRICS_TIMEOUT_MS,
    );
    if (metrics === undefined)
      throw new Error(`the primary process did not send the cluster's metrics within ${CLUSTER_METRICS_TIMEOUT_MS} ms`);
    return metrics;
  };
  let server: RunningServer;
  let config;
  try {
    config = loadConfig(effective);
    server = await startServer(config, {
      env: effective,
      cluster: { workerIndex, onIndexChanged: () => toPrimary({ type: 'docs-chat:index-changed' }), collectMetrics },
    });
  } catch (error) {
    toPrimary({ type: 'docs-chat:startup-failed', message: startupFailure(error) });
    cluster.worker?.disconnect();
    return 1;
  }
  const serving = serveUntilStopped(server, config.server.memorySoftLimitMb);
  const onMessage = (message: PrimaryMessage): void => {
    switch (message.type) {
      case 'docs-chat:stop':
        serving.stop();
        break;
      case 'docs-chat:reload-index':
        server
          .reloadIndex()
          .catch((error: unknown) =>
            server.logger.warn(
              { err: { message: (error as Error).message } },
              'could not reopen the index changed by another server process',
            ),
          );
        break;
      case 'docs-chat:list-running':
        toPrimary({ type: 'docs-chat:running-answers', requestId: message.requestId, ids: server.conversations.runningAnswerIds() });
        break;
      case 'docs-chat:collect-metrics':
        void server.metrics.snapshot().then(
          (metrics) => toPrimary({ type: 'docs-chat:metrics-snapshot', requestId: message.requestId, metrics }),
          (error: unknown) => server.logger.warn({ err: { message: (error as Error).message } }, "could not read this process's metrics"),
        );
        break;
      case 'docs-chat:cluster-metrics':
        metricsReplies.settle(message.requestId, message.metrics);
        break;
      case 'docs-chat:interrupt-orphans':
        server.conversations
          .interruptOrphanedAnswers(message.aliveElsewhere, message.olderThanMs)
          .catch((error: unknown) =>
            server.logger.warn(
              { err: { message: (error as Error).message } },
              'could not mark the answers of a crashed server process as interrupted',
            ),
          );
        break;
    }
  };
  process.on('message', onMessage);
  toPrimary({ type: 'docs-chat:ready', url: server.url });
  const code = await serving.exitCode;
  process.off('message', onMessage);
  cluster.worker?.disconnect();
  return code;
}

/** One message for the admin: what failed and what to do; never a stack trace or a key. */
export function startupFailure(error: unknown): string {
  if (isDocsChatError(error)) return error.describe();
  if (isLlmError(error)) return error.hint ? `${error.message}\n  → ${error.hint}` : error.message;
  if (error instanceof ConversationStoreUnavailableError) return `${error.message}\n  → ${error.hint}`;
  if (error instanceof Error && 'code' in error && (error as { code?: unknown }).code === 'EADDRINUSE') {
    return `${error.message}\n  → Another program uses this port: stop it or set PORT to a free port.`;
  }
  return error instanceof Error ? error.message : String(error);
}
