/**
 * Builds the Fastify application from settings and already opened
 * dependencies; `server-runtime.ts` opens them and listens. Keeping the two
 * apart lets tests build the real app on any index and store.
 */
import fastifyCors from '@fastify/cors';
import fastifyRateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { CHAT_PROTOCOL_HEADER } from '@docs-chat/core/protocol';
import { ChatService, type RetrievalHandle } from './chat/chat-service.js';
import { type ConversationGateway, describeError } from './chat/conversation-gateway.js';
import type { ServerSettings } from './config.js';
import type { AssembleContext, CountTokens, Embedder, RunIngest, VectorStore } from './core-api.js';
import type { LlmCheck } from './health/health-check.js';
import { errorResponseBody, HttpError, toHttpError } from './http-errors.js';
import type { ChatModel } from './llm/chat-model.js';
import type { Logger } from 'pino';
import { requestIdFor } from './logging.js';
import { adminRoutes } from './plugins/admin-routes.js';
import { chatRoutes } from './plugins/chat-routes.js';
import { conversationRoutes } from './plugins/conversation-routes.js';
import { healthRoutes } from './plugins/health-routes.js';
import { insightsRoutes } from './plugins/insights-routes.js';
import { searchRoutes } from './plugins/search-routes.js';
import { StreamTracker } from './plugins/stream-tracker.js';
import { webhookRoutes } from './plugins/webhook-routes.js';
import type { GitSyncJob } from './sync/git-sync-job.js';

/** The retriever and the store it reads; the admin ingest may replace both. */
export interface OpenRetrieval extends RetrievalHandle {
  store: Pick<VectorStore, 'backend' | 'collection' | 'status'>;
  /** What embeds the questions (shown by /health; `embed` also groups questions in /admin/insights). */
  embedder?: Pick<Embedder, 'provider' | 'model' | 'dimensions'> & Partial<Pick<Embedder, 'embed' | 'maxBatchSize'>>;
}

export interface AppDependencies {
  retrieval: OpenRetrieval;
  assembleContext: AssembleContext;
  countTokens: CountTokens;
  chatModel: ChatModel;
  /** Result of the model check made at start-up. */
  llmCheck: LlmCheck;
  conversations: ConversationGateway;
  /** Needed for `/admin/ingest` (with ADMIN_TOKEN). */
  runIngest?: RunIngest;
  /** The background git sync (GIT_URL set): `/admin/sync`, and `/webhooks/git` with GIT_WEBHOOK_SECRET. */
  gitSync?: { job: GitSyncJob; branch: string | undefined };
  /** The server's logger (see `createLogger`). */
  logger: Logger;
}

export async function buildApp(settings: ServerSettings, deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: settings.bodyLimitBytes,
    // A hop count is trusted as "the nearest N proxies".
    trustProxy:
      typeof settings.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (settings.trustProxy as number)
        : settings.trustProxy,
    genReqId: requestIdFor,
    // One line per request, written when it completes (see the onResponse hook), instead of Fastify's
    // two ("incoming request" and "request completed"): half the log volume at the default level.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    return503OnClosing: true,
  });
  const streams = new StreamTracker();
  const startedAt = Date.now();

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  });

  app.setErrorHandler((error, request, reply) => {
    const httpError = toHttpError(error);
    if (httpError.code === 'internal_error') request.log.error({ err: describeError(error) }, 'request failed');
    if (httpError.retryAfterSeconds !== undefined) reply.header('retry-after', String(httpError.retryAfterSeconds));
    return reply.code(httpError.statusCode).send(errorResponseBody(httpError, request.id));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new HttpError('route_not_found');
    return reply.code(error.statusCode).send(errorResponseBody(error, request.id));
  });

  const allowAnyOrigin = settings.corsOrigins.includes('*');
  const allowedOrigins = new Set(settings.corsOrigins);
  await app.register(fastifyCors, {
    // Refusing with an error (403) instead of silently leaving out the header tells the
    // admin what to fix, and stops a refused site from spending the model's quota.
    origin: (origin, callback) => {
      if (origin === undefined || allowAnyOrigin || allowedOrigins.has(origin)) callback(null, true);
      else callback(new HttpError('origin_not_allowed'), false);
    },
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ['content-type', 'accept', 'authorization', 'x-request-id'],
    exposedHeaders: [CHAT_PROTOCOL_HEADER, 'x-request-id', 'retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
    maxAge: 600,
  });

  await app.register(fastifyRateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new HttpError('rate_limited', {
        message: `Too many requests from your address (limit ${context.max} per ${humanWindow(settings.rateLimit.windowMs)}); please wait ${context.after} before asking again.`,
        retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
      }),
  });

  const chat = new ChatService({
    retrieval: deps.retrieval,
    assembleContext: deps.assembleContext,
    countTokens: deps.countTokens,
    chatModel: deps.chatModel,
    conversations: deps.conversations,
  });

  await app.register(healthRoutes, {
    sources: {
      vectorStore: () => deps.retrieval.store,
      embedder: () => deps.retrieval.embedder,
      conversations: deps.conversations,
      llm: deps.llmCheck,
      activeStreams: () => streams.size,
      timeoutMs: settings.healthCheckTimeoutMs,
      startedAt,
    },
  });
  await app.register(chatRoutes, { chat, heartbeatMs: settings.heartbeatMs, rateLimit: settings.rateLimit, streams });
  await app.register(searchRoutes, { retrieval: deps.retrieval, rateLimit: settings.rateLimit });
  await app.register(conversationRoutes, { conversations: deps.conversations });
  if (settings.adminToken !== undefined && deps.runIngest !== undefined) {
    await app.register(adminRoutes, { adminToken: settings.adminToken, runIngest: deps.runIngest, gitSync: deps.gitSync?.job });
  }
  if (settings.adminToken !== undefined) {
    await app.register(insightsRoutes, { adminToken: settings.adminToken, conversations: deps.conversations, retrieval: deps.retrieval });
  }
  if (settings.gitWebhookSecret !== undefined && deps.gitSync !== undefined) {
    await app.register(webhookRoutes, { secret: settings.gitWebhookSecret, job: deps.gitSync.job, branch: deps.gitSync.branch });
  }

  // Runs once new requests are refused (503) and before connections close: running answers get the grace period.
  app.addHook('preClose', async () => {
    if (streams.size === 0) return;
    app.log.info({ activeStreams: streams.size, graceMs: settings.shutdownGraceMs }, 'waiting for running answers before stopping');
    const cut = await streams.drain(settings.shutdownGraceMs);
    if (cut > 0) app.log.warn({ cutStreams: cut }, 'stopped answers still running after the grace period');
  });

  return app;
}

function humanWindow(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}
