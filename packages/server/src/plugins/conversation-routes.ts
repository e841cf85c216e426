/** `GET /conversations/:id` to resume a conversation and `POST /feedback` to rate an answer. */
import type { FastifyPluginAsync } from 'fastify';
import { Wire, type FinishReason, type SourceRef, type Static } from '@docs-chat/core/protocol';
import { ConversationStoreUnavailableError, type NewFeedback } from '../conversations/conversation-store.js';
import type { ConversationGateway } from '../chat/conversation-gateway.js';
import { HttpError } from '../http-errors.js';

export const MAX_FEEDBACK_REASON_CHARS = 1000;

/** The `:id` of the conversation routes. */
export const conversationIdParamsSchema = Wire.object({
  id: Wire.string({ format: 'uuid', problem: 'must be the UUID from the "meta" event of an answer.' }),
});

/** Body of `POST /feedback`. */
export const feedbackBodySchema = Wire.object(
  {
    message_id: Wire.string({ format: 'uuid', problem: 'must be the UUID from the "meta" event of the answer being rated.' }),
    rating: Wire.nullable(Wire.oneOf(['up', 'down']), { problem: 'must be "up", "down" or null (null takes an earlier rating back).' }),
    reason: Wire.optional(Wire.nullable(Wire.string({ maxLength: MAX_FEEDBACK_REASON_CHARS }))),
  },
  { closed: true },
);

export interface ConversationRoutesOptions {
  conversations: ConversationGateway;
  /** Per reader IP (FEEDBACK_RATE_LIMIT_MAX); each rating is a database write. */
  feedbackRateLimit: { max: number; windowMs: number };
  /** Per reader IP (CONVERSATION_RATE_LIMIT_MAX); each read loads a whole conversation. */
  conversationRateLimit: { max: number; windowMs: number };
}

export interface ConversationBody {
  id: string;
  created_at: string;
  messages: {
    id: string;
    role: 'user' | 'assistant' | 'system';
    content: string;
    mode: string | null;
    sources: SourceRef[];
    status: string;
    finish_reason: FinishReason | null;
    /** The reader's rating of an answer, when given. */
    rating?: 'up' | 'down';
    created_at: string;
  }[];
}

export const conversationRoutes: FastifyPluginAsync<ConversationRoutesOptions> = async (app, options) => {
  const { conversations, feedbackRateLimit, conversationRateLimit } = options;
  const conversationLimit = { rateLimit: { max: conversationRateLimit.max, timeWindow: conversationRateLimit.windowMs } };
  app.get<{ Params: Static<typeof conversationIdParamsSchema> }>(
    '/conversations/:id',
    { config: conversationLimit, schema: { params: conversationIdParamsSchema } },
    async (request): Promise<ConversationBody> => {
      const { id } = request.params;
      const conversation = await unavailableAs503(conversations.run((store) => store.getConversation(id)));
      if (!conversation) throw new HttpError('conversation_not_found');
      return {
        id: conversation.id,
        created_at: conversation.createdAt,
        messages: conversation.messages
          .filter((message) => message.role !== 'system')
          .map((message) => ({
            id: message.id,
            role: message.role,
            content: message.content,
            mode: message.mode,
            sources: message.sources,
            status: message.status,
            finish_reason: message.finishReason,
            ...(message.rating ? { rating: message.rating } : {}),
            created_at: message.createdAt,
          })),
      };
    },
  );

  const feedbackLimit = { rateLimit: { max: feedbackRateLimit.max, timeWindow: feedbackRateLimit.windowMs } };
  app.post<{ Body: Static<typeof feedbackBodySchema> }>(
    '/feedback',
    { config: feedbackLimit, schema: { body: feedbackBodySchema } },
    async (request, reply) => {
      const { message_id: messageId, rating, reason } = request.body;
      const feedback: NewFeedback = { messageId, rating };
      if (typeof reason === 'string' && reason.trim().length > 0) feedback.reason = reason.trim();
      const outcome = await unavailableAs503(conversations.run((store) => store.addFeedback(feedback)));
      if (outcome === 'unknown_message') throw new HttpError('message_not_found');
      // 201 for a rating stored; 200 for a rating taken back (`"rating": null`), which creates nothing.
      return reply
        .code(feedback.rating === null ? 200 : 201)
        .send({ message_id: feedback.messageId, rating: feedback.rating, stored: true });
    },
  );
};

/** A database outage becomes the 503 that tells the reader to try again shortly. */
export async function unavailableAs503<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ConversationStoreUnavailableError) throw new HttpError('conversation_store_unavailable');
    throw error;
  }
}
