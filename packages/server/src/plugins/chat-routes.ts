/**
 * `POST /chat`: validates the body by the protocol's schema before any
 * streaming (400 with every problem listed, 404 for an unknown conversation, 503 with retry-after
 * when the server is too busy to search for the question), then streams the protocol's
 * events as SSE, or returns one JSON object to clients that send
 * `Accept: application/json`. Rate limited per reader IP.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  CHAT_PROTOCOL_HEADER,
  CHAT_PROTOCOL_VERSION,
  SSE_CONTENT_TYPE,
  chatRequestFrom,
  chatRequestSchema,
  type AnswerScope,
  type ChatRequestBody,
  type ChatJsonResponse,
  type ChatMode,
  type ChatStreamEvent,
  type ErrorEvent,
  type FinishReason,
  type SourceRef,
  type StreamErrorCode,
  type WarningEvent,
} from '@docs-chat/core/protocol';
import type { ChatMetrics, ChatService } from '../chat/chat-service.js';
import { describeError } from '../chat/conversation-gateway.js';
import { HttpError, retryAfterSecondsFor, SHUTDOWN_RETRY_AFTER_SECONDS, type HttpErrorCode } from '../http-errors.js';
import { answerAbortSignal } from './client-disconnect.js';
import { createEventStreamWriter } from './event-stream.js';
import type { StreamTracker } from './stream-tracker.js';

export interface ChatRoutesOptions {
  chat: ChatService;
  heartbeatMs: number;
  rateLimit: { max: number; windowMs: number };
  streams: StreamTracker;
  /** Told of each answer once it ended (for the metrics). */
  onAnswerFinished?: (answer: ChatMetrics & { mode: ChatMode; durationMs: number }) => void;
}

export const chatRoutes: FastifyPluginAsync<ChatRoutesOptions> = async (app, options) => {
  const { chat, heartbeatMs, rateLimit, streams } = options;

  app.post<{ Body: ChatRequestBody }>(
    '/chat',
    {
      config: { rateLimit: { max: rateLimit.max, timeWindow: rateLimit.windowMs }, logsOwnCompletion: true },
      // The protocol package's schema, shared with the widget; a refusal is the documented 400 (see request-validation.ts).
      schema: { body: chatRequestSchema },
      // Before validation, so a refused request tells the client the version too.
      onRequest: async (_request, reply) => {
        reply.header(CHAT_PROTOCOL_HEADER, CHAT_PROTOCOL_VERSION);
      },
    },
    async (request, reply) => {
      const signal = answerAbortSignal(reply, streams.shutdownSignal);
      const started = await chat.start(chatRequestFrom(request.body), signal, request.log);
      if (started.kind === 'unknown_conversation') throw new HttpError('conversation_not_found');
      if (started.kind === 'busy')
        throw new HttpError('service_busy', { message: started.message, retryAfterSeconds: retryAfterSecondsFor(started.retryAfterMs) });
      // At debug only: at the default level an answer writes one line, when it ends (which stands for the
      // request's own "request completed" line too, see CHAT_ROUTE_CONFIG); log volume is CPU per answer.
      request.log.debug(
        { conversationId: started.conversationId, messageId: started.messageId, mode: started.mode, usedRetrieval: started.usedRetrieval },
        'chat answer started',
      );

      const startedAt = performance.now();
      const logFinished = (): void => {
        const durationMs = Math.round(performance.now() - startedAt);
        request.log.info(
          {
            req: request,
            conversationId: started.conversationId,
            messageId: started.messageId,
            mode: started.mode,
            durationMs,
            ...started.metrics,
          },
          'chat answer finished',
        );
        options.onAnswerFinished?.({ ...started.metrics, mode: started.mode, durationMs });
      };

      if (prefersJson(request)) {
        const collected = await streams.track(collectAnswer(started.events));
        logFinished();
        if (collected.error)
          throw new HttpError(httpCodeFor(collected.error), {
            message: collected.error.message,
            ...retryAfterOf(collected.error),
          });
        const body: ChatJsonResponse = {
          conversation_id: started.conversationId,
          message_id: started.messageId,
          answer: collected.answer,
          sources: collected.sources,
          used_retrieval: started.usedRetrieval,
          finish_reason: collected.finishReason,
          persisted: collected.persisted,
          ...(collected.scope ? { scope: collected.scope } : {}),
          warnings: collected.warnings,
        };
        return body;
      }

      const writer = createEventStreamWriter(
        heartbeatMs,
        (error) => request.log.error({ err: describeError(error) }, 'chat stream failed'),
        undefined,
        reply.raw,
      );
      void streams.track(writer.pump(started.events).then(logFinished));
      return reply
        .header('content-type', SSE_CONTENT_TYPE)
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no')
        .send(writer.body);
    },
  );
};

/** Scripts and agents ask for JSON; browsers and the widget get the stream. */
function prefersJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/event-stream');
}

interface CollectedAnswer {
  answer: string;
  sources: SourceRef[];
  finishReason: FinishReason;
  persisted: boolean;
  error: ErrorEvent | null;
  scope: AnswerScope | undefined;
  warnings: Pick<WarningEvent, 'code' | 'message'>[];
}

async function collectAnswer(events: AsyncIterable<ChatStreamEvent>): Promise<CollectedAnswer> {
  const collected: CollectedAnswer = {
    answer: '',
    sources: [],
    finishReason: 'interrupted',
    persisted: false,
    error: null,
    scope: undefined,
    warnings: [],
  };
  for await (const event of events) {
    switch (event.type) {
      case 'meta':
        collected.persisted = event.persisted;
        break;
      case 'sources':
        collected.sources = event.sources;
        collected.scope = event.scope;
        break;
      case 'token':
        collected.answer += event.content;
        break;
      case 'done':
        collected.sources = event.sources;
        collected.finishReason = event.finish_reason;
        break;
      case 'error':
        collected.error = event;
        break;
      case 'warning':
        collected.warnings.push({ code: event.code, message: event.message });
        break;
    }
  }
  return collected;
}

/** The HTTP error of each stream error code, for JSON mode: a new stream code does not compile until it has one. */
const HTTP_CODE_OF_STREAM_ERROR: Record<StreamErrorCode, HttpErrorCode> = {
  busy: 'service_busy',
  search_unavailable: 'search_unavailable',
  shutting_down: 'shutting_down',
  internal_error: 'internal_error',
  llm_unavailable: 'llm_failed',
  answer_interrupted: 'llm_failed',
  answer_blocked: 'llm_failed',
  llm_failed: 'llm_failed',
};

function httpCodeFor(event: ErrorEvent): HttpErrorCode {
  return HTTP_CODE_OF_STREAM_ERROR[event.code];
}

/** Seconds a JSON client should wait before asking again, for the errors that pass (as the refusals before a stream say). */
const RETRY_AFTER_OF_STREAM_ERROR: Partial<Record<StreamErrorCode, number>> = {
  busy: retryAfterSecondsFor(undefined),
  shutting_down: SHUTDOWN_RETRY_AFTER_SECONDS,
};

function retryAfterOf(event: ErrorEvent): { retryAfterSeconds?: number } {
  const seconds = RETRY_AFTER_OF_STREAM_ERROR[event.code];
  return seconds === undefined ? {} : { retryAfterSeconds: seconds };
}
