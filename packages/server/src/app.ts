/**
 * Builds the Fastify application from settings and already opened
 * dependencies; `server-runtime.ts` opens them and listens. Keeping the two
 * apart lets tests build the real app on any index and store.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import fastifyCors from '@fastify/cors';
import fastifyRateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { CHAT_PROTOCOL_HEADER } from '@docs-chat/core/protocol';
import { ChatService, type RetrievalHandle } from './chat/chat-service.js';
import { type ConversationGateway, describeError } from './chat/conversation-gateway.js';
import type { ServerSettings } from './config.js';
import type { AssembleContext, CountTokens, Embedder, RunIngest, VectorStore } from './core-api.js';
import type { LlmCheck } from './health/health-check.js';
import { errorResponseBody, HttpError, SHUTDOWN_RETRY_AFTER_SECONDS, toHttpError } from './http-errors.js';
import { ajvOptions, schemaErrorFormatter } from './request-validation.js';
import type { ChatModel } from './llm/chat-model.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { requestIdFor } from './logging.js';
import { adminRoutes } from './plugins/admin-routes.js';
import { chatRoutes } from './plugins/chat-routes.js';
import { conversationRoutes } from './plugins/conversation-routes.js';
import { healthRoutes } from './plugins/health-routes.js';
import { mcpRoutes } from './plugins/mcp-routes.js';
import { readerConversationRoutes } from './plugins/reader-conversation-routes.js';
import { insightsRoutes } from './plugins/insights-routes.js';
import { searchRoutes } from './plugins/search-routes.js';
import { StreamTracker } from './plugins/stream-tracker.js';
import { metricsRoutes } from './plugins/metrics-routes.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { webhookRoutes } from './plugins/webhook-routes.js';
import type { GitSyncJob } from './sync/git-sync-job.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route logs one line of its own when the request is done, in place of "request completed". */
    logsOwnCompletion?: boolean;
  }
}

/** The retriever and the store it reads; the admin ingest may replace both. */
export interface OpenRetrieval extends RetrievalHandle {
  /** Also read by the MCP read_page tool (the page's chunks). */
  store: Pick<VectorStore, 'backend' | 'collection' | 'status' | 'listFiles' | 'getByIds' | 'getByFile'>;
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
  /** What `GET /metrics` shows; made here when not given (the runtime gives it, to count model retries and ingests too). */
  metrics?: ServerMetrics;
  /** What `GET /metrics` renders when not `metrics` alone: the figures of every process of a cluster. */
  collectMetrics?: () => Promise<Registry>;
  /** Where the rate limits count (shared by the processes of WORKERS > 1); in memory when absent. */
  rateLimitStore?: FastifyRateLimitStoreCtor;
}

export async function buildApp(settings: ServerSettings, deps: AppDependencies): Promise<FastifyInstance> {
  const allowAnyOrigin = settings.corsOrigins.includes('*');
  const allowedOrigins = new Set(settings.corsOrigins);
  const exposedHeaders = [
    CHAT_PROTOCOL_HEADER,
    'x-request-id',
    'retry-after',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
  ];
  const isAllowedOrigin = (origin: string | undefined): boolean => origin === undefined || allowAnyOrigin || allowedOrigins.has(origin);

  let closing = false;
  /** Sends an error in the documented shape, with the request id and, for an allowed origin, the CORS headers. */
  const sendError = (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const httpError = toHttpError(error);
    if (httpError.code === 'internal_error') request.log.error({ err: describeError(error) }, 'request failed');
    if (httpError.retryAfterSeconds !== undefined) reply.header('retry-after', String(httpError.retryAfterSeconds));
    reply.header('x-request-id', request.id);
    // Errors raised before the CORS hook ran (framework errors, the shutdown refusal) still need the headers,
    // or the widget sees an opaque network error instead of the message.
    const origin = request.headers.origin;
    if (origin !== undefined && isAllowedOrigin(origin) && !reply.hasHeader('access-control-allow-origin')) {
      reply
        .header('access-control-allow-origin', origin)
        .header('vary', 'Origin')
        .header('access-control-expose-headers', exposedHeaders.join(', '));
    }
    // Fastify refuses a body that is too large (413) or of the wrong type (415) before reading it, and asks for the
    // connection to be closed. Closing a socket that still holds unread upload data makes the kernel send a reset,
    // and a client still uploading can lose the answer with it: the reader sees a network error, not "shorten the
    // highlighted text". A declared body up to DRAIN_REFUSED_BODY_BYTES keeps its connection instead; Node reads
    // and discards the rest once the answer is sent, and REQUEST_TIMEOUT_MS still bounds a slow upload.
    if (!closing && !request.raw.complete && reply.getHeader('connection') === 'close') {
      const declared = Number(request.headers['content-length']);
      if (Number.isInteger(declared) && declared <= DRAIN_REFUSED_BODY_BYTES) reply.removeHeader('connection');
    }
    return reply.code(httpError.statusCode).send(errorResponseBody(httpError, request.id));
  };

  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger, // eslint-disable-line @typescript-eslint/no-unnecessary-type-assertion -- the assertion picks Fastify's logger type parameter, without it buildApp's return type no longer matches
    bodyLimit: settings.bodyLimitBytes,
    // Route schemas validate requests; a refusal becomes the documented `invalid_request` with its details.
    ajv: ajvOptions,
    schemaErrorFormatter: (errors, part) => schemaErrorFormatter(errors, part),
    // A hop count is trusted as "the nearest N proxies".
    trustProxy:
      typeof settings.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (settings.trustProxy as number)
        : settings.trustProxy,
    genReqId: requestIdFor,
    // One line per request, written when it completes (see the onResponse hook), instead of Fastify's
    // two ("incoming request" and "request completed"): half the log volume at the default level.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    // Fastify's own 503 while closing has another shape; the onRequest hook below refuses with `shutting_down`.
    return503OnClosing: false,
    // A too long path segment (414) or an undecodable URL (400), answered before routing.
    frameworkErrors: (error, request, reply) => {
      sendError(error, request, reply);
    },
    // Node counts both from the first byte to the end of the request body; an answer streamed back afterwards
    // is not limited. Without them a client sending a partial body holds a socket for ever.
    requestTimeout: settings.requestTimeoutMs,
    http: {
      headersTimeout: settings.headersTimeoutMs,
      // Node checks the two timeouts on this period (30 s by default), so a short timeout needs a short period.
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(30_000, Math.floor(Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs) / 4)),
      ),
    },
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => writeClientError(error, socket),
    // Closing waits for running answers up to SHUTDOWN_GRACE_MS in a preClose hook; the plugin timeout
    // bounds each close hook too, so it must outlast the grace period or closing logs AVV_ERR_READY_TIMEOUT.
    pluginTimeout: pluginTimeoutFor(settings.shutdownGraceMs),
  });
  const streams = new StreamTracker();
  const startedAt = Date.now();
  const metrics = deps.metrics ?? new ServerMetrics({ modelProvider: deps.chatModel.provider, storeBackend: deps.conversations.backend });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route template (/conversations/:id), never the path with its ids; 'unmatched' for unknown paths.
    metrics.observeRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode);
    // A streamed answer already wrote its own line ("chat answer finished"); refusals still get this one.
    if (reply.statusCode < 400 && request.routeOptions.config.logsOwnCompletion === true) return;
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  });

  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.setNotFoundHandler((request, reply) => sendError(new HttpError('route_not_found'), request, reply));
  // Without a parser for it, plain text is refused with 415 like every other type that is not JSON.
  app.removeContentTypeParser('text/plain');

  await app.register(fastifyCors, {
    // Refusing with an error (403) instead of silently leaving out the header tells the
    // admin what to fix, and stops a refused site from spending the model's quota.
    origin: (origin, callback) => {
      if (isAllowedOrigin(origin)) callback(null, true);
      else callback(new HttpError('origin_not_allowed'), false);
    },
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    // mcp-protocol-version: browser-based MCP clients send it on every call after initialize.
    allowedHeaders: ['content-type', 'accept', 'authorization', 'x-request-id', 'mcp-protocol-version'],
    exposedHeaders,
    maxAge: 600,
  });
  // Registered after CORS so the refusal carries its headers; requests on kept-alive connections can still
  // arrive while running answers finish.
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new HttpError('shutting_down', { retryAfterSeconds: SHUTDOWN_RETRY_AFTER_SECONDS });
  });

  await app.register(fastifyRateLimit, {
    global: false,
    // A shared store that cannot be reached lets requests through rather than failing them: answers go on
    // during a database outage, as they do unsaved (the store logs the failure).
    ...(deps.rateLimitStore ? { store: deps.rateLimitStore, skipOnError: true } : {}),
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
    cacheMs: settings.healthCacheMs,
  });
  await app.register(chatRoutes, {
    chat,
    heartbeatMs: settings.heartbeatMs,
    rateLimit: settings.rateLimit,
    streams,
    onAnswerFinished: (answer) => metrics.observeAnswer(answer),
  });
  await app.register(metricsRoutes, { collect: deps.collectMetrics ?? (() => metrics.registry), token: settings.metricsToken });
  await app.register(searchRoutes, { retrieval: deps.retrieval, rateLimit: settings.rateLimit });
  await app.register(conversationRoutes, {
    conversations: deps.conversations,
    feedbackRateLimit: settings.feedbackRateLimit,
    conversationRateLimit: settings.conversationRateLimit,
  });
  await app.register(mcpRoutes, {
    retrieval: deps.retrieval,
    chat,
    token: settings.mcp.token,
    siteUrl: settings.mcp.siteUrl,
    rateLimit: settings.rateLimit,
  });
  await app.register(readerConversationRoutes, { conversations: deps.conversations, rateLimit: settings.rateLimit });
  if (settings.adminToken !== undefined && deps.runIngest !== undefined) {
    await app.register(adminRoutes, { adminToken: settings.adminToken, runIngest: deps.runIngest, gitSync: deps.gitSync?.job });
  }
  if (settings.adminToken !== undefined) {
    await app.register(insightsRoutes, {
      adminToken: settings.adminToken,
      conversations: deps.conversations,
      retrieval: deps.retrieval,
      cacheMs: settings.insightsCacheMs,
    });
  }
  if (settings.gitWebhookSecret !== undefined && deps.gitSync !== undefined) {
    await app.register(webhookRoutes, { secret: settings.gitWebhookSecret, job: deps.gitSync.job, branch: deps.gitSync.branch });
  }

  // Runs once new requests are refused (503) and before connections close: running answers get the grace period.
  app.addHook('preClose', async () => {
    closing = true;
    if (streams.size === 0) return;
    app.log.info({ activeStreams: streams.size, graceMs: settings.shutdownGraceMs }, 'waiting for running answers before stopping');
    const cut = await streams.drain(settings.shutdownGraceMs);
    if (cut > 0) app.log.warn({ cutStreams: cut }, 'stopped answers still running after the grace period');
  });

  return app;
}

/**
 * A refused upload up to this size is read to its end so the refusal reaches the client (see sendError). It
 * costs only bandwidth, at most this much per refused request; a larger one is cut off at once.
 */
const DRAIN_REFUSED_BODY_BYTES = 8 * 1024 * 1024;

/** Room for the grace period plus the close hooks that follow it (stores, index). */
export function pluginTimeoutFor(shutdownGraceMs: number): number {
  return shutdownGraceMs + 10_000;
}

/**
 * Errors Node meets before there is a request (a body or headers not received in time, malformed HTTP):
 * the documented shape with a fresh request id, instead of Fastify's default body.
 */
function writeClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const httpError =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new HttpError('request_timeout')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new HttpError('headers_too_large')
        : new HttpError('malformed_request');
  const requestId = randomUUID();
  const body = JSON.stringify(errorResponseBody(httpError, requestId));
  const status = httpError.statusCode;
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

function humanWindow(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  return `${Math.round(ms / 1000)} seconds`;
}
