/**
 * Opens what the server needs from its configuration (the index, the chat
 * model checked once, the conversation store with its migrations), builds the
 * app, listens, and closes everything in order on shutdown. Start-up fails
 * with a DocsChatError or LlmError that says what to fix; a database that is
 * down does not stop it (answers stream unsaved and /health says degraded).
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { assembleContext, countTokens, openRetrieval, readSiteLayout, runGitIngest, runIngest } from './core-api.js';
import { runIngestProcess } from './commands/ingest-process.js';
import { configuredSiteFlags, siteOptionsFrom } from './commands/site-options.js';
import { GitSyncJob } from './sync/git-sync-job.js';
import { buildApp, type OpenRetrieval } from './app.js';
import { ConversationGateway, describeError } from './chat/conversation-gateway.js';
import { startConversationRetention } from './chat/conversation-retention.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { aggregateClusterMetrics, type ClusterMetrics } from './metrics/cluster-metrics.js';
import type { ServerConfig } from './config.js';
import type { ConversationStore } from './conversations/conversation-store.js';
import { createConversationStore } from './conversations/create-conversation-store.js';
import type { OpenedRetrieval, RunIngest } from './core-api.js';
import type { LlmCheck } from './health/health-check.js';
import { type ChatModel, isLlmError } from './llm/chat-model.js';
import { createChatModel } from './llm/create-chat-model.js';
import { createLogger, type LogDestination } from './logging.js';
import { withRetrievalCache } from './retrieval-cache.js';
import { createRateLimitClient, postgresRateLimitStore } from './rate-limits/postgres-rate-limit-store.js';

/** How long the start-up model check may take before the server starts anyway with the model marked down. */
const MODEL_CHECK_TIMEOUT_MS = 10_000;

export interface StartOptions {
  /** Where log lines go; stdout when absent. */
  logDestination?: LogDestination;
  /** An already created conversation store to use instead of the configured one (tests, benchmarks); its creator closes it. */
  conversationStore?: ConversationStore;
  /** Set when this process is one of several (WORKERS > 1), see cluster-primary.ts. */
  cluster?: ClusterWorkerOptions;
  /**
   * The environment the configuration was read from. With it, `POST /admin/ingest` runs `docs-chat ingest`
   * in a child process, off the thread that streams answers; without it (tests), in this process.
   */
  env?: NodeJS.ProcessEnv;
}

/** What a server process of a cluster needs to know and tell. */
export interface ClusterWorkerOptions {
  /** 0 for the first process: only it runs the background jobs (conversation retention). */
  workerIndex: number;
  /** Called after this process changed the index (admin ingest), so the other processes reopen it. */
  onIndexChanged(): void;
  /** Every process's metrics, gathered through the primary, for `GET /metrics`. */
  collectMetrics(): Promise<ClusterMetrics>;
}

export interface RunningServer {
  app: FastifyInstance;
  logger: Logger;
  /** `http://host:port` once listening. */
  url: string;
  /** Stops taking requests, lets running answers finish within SHUTDOWN_GRACE_MS, then closes stores. */
  close(): Promise<void>;
  /** Reopens the index (another process of the cluster changed it). */
  reloadIndex(): Promise<void>;
  /** The conversation store as the server uses it (orphaned answers after a crash of another process). */
  conversations: ConversationGateway;
  /** This process's metrics (the primary of a cluster adds them up with the others'). */
  metrics: ServerMetrics;
}

export async function startServer(config: ServerConfig, options: StartOptions = {}): Promise<RunningServer> {
  const logger = createLogger(config.server.logLevel, options.logDestination);
  const cleanups: (() => Promise<void>)[] = [];
  const closeAll = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => logger.warn({ err: describeError(error) }, 'error while closing'));
    }
  };
  try {
    const opened = await openRetrieval(config.core);
    let closeRetrieval = opened.close;
    cleanups.push(() => closeRetrieval());
    const cached = (retriever: OpenedRetrieval['retriever']) => withRetrievalCache(retriever, config.server.retrievalCache);
    const retrieval: OpenRetrieval = { retriever: cached(opened.retriever), store: opened.store, embedder: opened.embedder };

    const metrics = new ServerMetrics({
      modelProvider: config.server.llm.provider,
      storeBackend: options.conversationStore?.backend ?? (config.server.databaseUrl ? 'postgres' : 'pglite'),
    });
    const chatModel = createChatModel({
      provider: config.server.llm.provider,
      model: config.server.llm.model,
      ...(config.server.llm.apiKey ? { apiKey: config.server.llm.apiKey } : {}),
      ...(config.server.llm.baseUrl ? { baseUrl: config.server.llm.baseUrl } : {}),
      timeoutMs: config.server.llm.timeoutMs,
      onRetry: ({ attempt, delayMs, error }) => {
        metrics.observeModelRetry(error.code);
        logger.warn({ attempt, delayMs, code: error.code, status: error.status }, 'the chat model failed; retrying');
      },
    });
    const llmCheck = await checkChatModel(chatModel, logger);

    const store =
      options.conversationStore ??
      (await createConversationStore({
        ...(config.server.databaseUrl ? { databaseUrl: config.server.databaseUrl } : {}),
        dataDir: config.core.dataDir,
        pgliteProcess: true,
        onPgliteProcessEvent: (event) => {
          if (event.kind === 'restarted') logger.info({ pid: event.pid }, 'the embedded conversation database is back');
          else {
            if (event.kind === 'exited') metrics.observeDatabaseProcessExit();
            logger.error(
              { pid: event.pid, code: event.code, signal: event.signal, detail: event.detail, restartInMs: event.restartInMs },
              event.kind === 'exited'
                ? 'the embedded conversation database process ended; answers stream but are not saved until it is restarted'
                : 'the embedded conversation database could not be restarted; trying again',
            );
          }
        },
      }));
    const conversations = new ConversationGateway(store, logger, undefined, { onUnavailable: () => metrics.observeStoreFailure() });
    if (!options.conversationStore) cleanups.push(() => conversations.close());
    await conversations.migrate();

    // The ingest writes through its own store handle; afterwards the server reopens the index
    // so the next question sees the new chunks.
    const reload = async (): Promise<void> => {
      const reopened = await openRetrieval(config.core);
      const previousClose = closeRetrieval;
      // A fresh cache goes with the fresh index.
      retrieval.retriever = cached(reopened.retriever);
      retrieval.store = reopened.store;
      retrieval.embedder = reopened.embedder;
      closeRetrieval = reopened.close;
      await previousClose().catch((error: unknown) => logger.warn({ err: describeError(error) }, 'could not close the previous index'));
    };
    const ingestAndReload: RunIngest = async (ingestOptions) => {
      let ingestOnce: () => ReturnType<typeof runIngestProcess>;
      const childEnv = options.env;
      if (childEnv) {
        const childOptions = { rebuild: ingestOptions.rebuild ?? false, dryRun: ingestOptions.dryRun ?? false };
        ingestOnce = () => runIngestProcess(childEnv, childOptions);
      } else {
        // With DOCS_SITE_DIR the whole site is read again on each run, so new versions and locales are picked up.
        const site = config.core.site ? await readSiteLayout(await siteOptionsFrom(configuredSiteFlags(config.core.site))) : undefined;
        const runOptions = { ...ingestOptions, ...(site ? { site } : {}) };
        ingestOnce = () => runIngest(config.core, runOptions);
      }
      // A dry run changes nothing, so it is not an ingest run for the metrics.
      if (ingestOptions.dryRun) return ingestOnce();
      return metrics.timeIngest(
        'admin',
        async () => {
          const report = await ingestOnce();
          await reload();
          options.cluster?.onIndexChanged();
          return report;
        },
        (report) => report.chunks.total,
      );
    };
    // The git sync runs as a background job (GIT_URL set); the index is reopened after each successful run.
    const recorded = config.core.git
      ? ((await opened.store.readMeta())?.extra?.['gitSync'] as { commit?: unknown } | undefined)
      : undefined;
    const gitSync = config.core.git
      ? {
          job: new GitSyncJob(
            ({ onProgress }) =>
              metrics.timeIngest(
                'git',
                async () => {
                  const report = await runGitIngest(config.core, { onProgress });
                  await reload();
                  return report;
                },
                (report) => report.chunks.total,
              ),
            logger,
            typeof recorded?.commit === 'string' ? recorded.commit : null,
          ),
          branch: config.core.git.ref,
        }
      : undefined;
    if (gitSync) cleanups.push(() => gitSync.job.idle());

    // Several processes count each reader's requests in one place: PostgreSQL (WORKERS > 1 requires DATABASE_URL).
    let rateLimitStore: ReturnType<typeof postgresRateLimitStore> | undefined;
    if (options.cluster && config.server.databaseUrl) {
      const rateLimitClient = createRateLimitClient(config.server.databaseUrl);
      cleanups.push(() => rateLimitClient.close());
      let lastWarning = 0;
      rateLimitStore = postgresRateLimitStore(rateLimitClient, (error) => {
        // At most one line a minute while the database is away.
        if (Date.now() - lastWarning < 60_000) return;
        lastWarning = Date.now();
        logger.warn(
          { err: describeError(error) },
          'rate limits cannot be counted in the database: requests are let through until it answers',
        );
      });
    }

    const app = await buildApp(config.server, {
      ...(rateLimitStore ? { rateLimitStore } : {}),
      retrieval,
      assembleContext,
      countTokens,
      chatModel,
      llmCheck,
      conversations,
      runIngest: ingestAndReload,
      ...(gitSync ? { gitSync } : {}),
      logger,
      metrics,
      ...(options.cluster ? { collectMetrics: collectClusterMetrics(options.cluster) } : {}),
    });
    cleanups.push(() => app.close());
    if (config.server.conversationRetentionDays !== undefined && (options.cluster?.workerIndex ?? 0) === 0) {
      const retention = startConversationRetention({ retentionDays: config.server.conversationRetentionDays, conversations, logger });
      cleanups.push(async () => retention.stop());
    }
    const url = await app.listen({ port: config.server.port, host: config.server.host });
    logger.info(
      {
        url,
        vectorStore: retrieval.store.backend,
        embedder: retrieval.embedder ? `${retrieval.embedder.provider}/${retrieval.embedder.model}` : undefined,
        conversations: conversations.backend,
        llm: { provider: chatModel.provider, model: chatModel.model, status: llmCheck.status },
        adminRoutes: config.server.adminToken !== undefined,
        conversationRetentionDays: config.server.conversationRetentionDays ?? 'unlimited',
      },
      'docs-chat server ready',
    );
    if (chatModel.provider === 'extractive') {
      // Readers see quotes labelled "From the docs"; the admin learns here (and in /health) why, and how to change it.
      logger.info(
        { llm: { provider: chatModel.provider } },
        'no language model is configured: answers quote the docs; set GEMINI_API_KEY (or LLM_PROVIDER=openai) for written answers',
      );
    }
    let closing: Promise<void> | undefined;
    return {
      app,
      logger,
      url,
      close: () => (closing ??= closeAll()),
      reloadIndex: reload,
      conversations,
      metrics,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

function collectClusterMetrics(cluster: ClusterWorkerOptions): () => Promise<Registry> {
  return async () => aggregateClusterMetrics(await cluster.collectMetrics());
}

/**
 * Checks key and model once. A rejected key or unknown model stops start-up; an
 * unreachable provider does not (it may be a passing outage), but /health shows it.
 */
async function checkChatModel(chatModel: ChatModel, logger: Logger): Promise<LlmCheck> {
  const base = { provider: chatModel.provider, model: chatModel.model };
  try {
    await chatModel.verify(AbortSignal.timeout(MODEL_CHECK_TIMEOUT_MS));
    return { status: 'up', ...base };
  } catch (error) {
    if (isLlmError(error) && (error.code === 'llm_auth' || error.code === 'llm_model_not_found' || error.code === 'llm_rejected')) {
      throw error;
    }
    const detail = isLlmError(error) ? error.message : 'the model could not be checked';
    logger.warn(
      { err: describeError(error), ...base },
      'the chat model could not be checked at start-up; answers may fail until it is reachable',
    );
    return { status: 'down', ...base, detail };
  }
}
