/**
 * `POST /chat`: validates the body before any streaming (400 with every
 * problem listed, 404 for an unknown conversation), then streams the protocol's
 * events as SSE, or returns one JSON object to clients that send
 * `Accept: application/json`. Rate limited per reader IP.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  CHAT_PROTOCOL_HEADER,
  CHAT_PROTOCOL_VERSION,
  SSE_CONTENT_TYPE,
  validateChatRequest,
  type AnswerScope,
  type ChatJsonResponse,
  type ChatMode,
  type ChatStreamEvent,
  type ErrorEvent,
  type FinishReason,
  type SourceRef,
} from '@docs-chat/core/protocol';
import type { ChatMetrics, ChatService } from '../chat/chat-service.js';
import { describeError } from '../chat/conversation-gateway.js';
import { HttpError, type HttpErrorCode } from '../http-errors.js';
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

  app.post(
    '/chat',
    { config: { rateLimit: { max: rateLimit.max, timeWindow: rateLimit.windowMs }, logsOwnCompletion: true } },
    async (request, reply) => {
      reply.header(CHAT_PROTOCOL_HEADER, CHAT_PROTOCOL_VERSION);
      const validation = validateChatRequest(request.body);
      if (!validation.ok) throw new HttpError('invalid_request', { details: validation.errors });

      const signal = answerAbortSignal(reply, streams.shutdownSignal);
      const started = await chat.start(validation.value, signal, request.log);
      if (started.kind === 'unknown_conversation') throw new HttpError('conversation_not_found');
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
          { req: request, conversationId: started.conversationId, messageId: started.messageId, mode: started.mode, durationMs, ...started.metrics },
          'chat answer finished',
        );
        options.onAnswerFinished?.({ ...started.metrics, mode: started.mode, durationMs });
      };

      if (prefersJson(request)) {
        const collected = await streams.track(collectAnswer(started.events));
        logFinished();
        if (collected.error) throw new HttpError(httpCodeFor(collected.error), { message: collected.error.message });
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

      const writer = createEventStreamWriter(heartbeatMs, (error) =>
        request.log.error({ err: describeError(error) }, 'chat stream failed'),
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
  warnings: { code: string; message: string }[];
}

async function collectAnswer(events: AsyncIterable<ChatStreamEvent>): Promise<CollectedAnswer> {
  const collected: CollectedAnswer = { answer: '', sources: [], finishReason: 'interrupted', persisted: false, error: null, scope: undefined, warnings: [] };
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

function httpCodeFor(event: ErrorEvent): HttpErrorCode {
  switch (event.code) {
    case 'busy':
      return 'service_busy';
    case 'search_unavailable':
      return 'search_unavailable';
    case 'shutting_down':
      return 'shutting_down';
    case 'internal_error':
      return 'internal_error';
    default:
      return 'llm_failed';
  }
}
