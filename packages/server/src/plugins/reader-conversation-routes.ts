/**
 * What a reader can do with their own conversation: export it as Markdown,
 * share it read-only, delete it.
 *
 * The conversation id works as the reader's key (only their browser has it),
 * so holding it is what allows export, share and delete. A share id is a
 * separate random token: the shared view never shows the conversation or
 * message ids, so a link cannot be turned into the right to continue, rate or
 * delete the conversation.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { Wire, type SourceRef, type Static } from '@docs-chat/core/protocol';
import type { ConversationGateway } from '../chat/conversation-gateway.js';
import { conversationToMarkdown } from '../chat/conversation-markdown.js';
import { HttpError } from '../http-errors.js';
import { conversationIdParamsSchema, unavailableAs503 } from './conversation-routes.js';

/** 24 random bytes: 192 bits, written as 32 base64url characters. */
const SHARE_ID_BYTES = 24;
const SHARE_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export function newShareId(): string {
  return randomBytes(SHARE_ID_BYTES).toString('base64url');
}

export interface ReaderConversationRoutesOptions {
  conversations: ConversationGateway;
  rateLimit: { max: number; windowMs: number };
}

/** Body of `POST /conversations/:id/share`. */
export interface ShareBody {
  share_id: string;
  /** Path of the read-only view on this server. */
  path: string;
}

/** Body of `GET /shared/:shareId`: the messages only, without any id that grants more than reading. */
export interface SharedConversationBody {
  share_id: string;
  created_at: string;
  messages: { role: 'user' | 'assistant'; content: string; sources: SourceRef[]; status: string; created_at: string }[];
}

type ConversationIdParams = Static<typeof conversationIdParamsSchema>;

const exportQuerySchema = Wire.object(
  {
    format: Wire.optional(Wire.oneOf(['md'], { problem: 'must be "md" (Markdown), the only export format.' })),
    site_url: Wire.optional(Wire.string({ maxLength: 2048 })),
  },
  // Open: a link with a cache-busting parameter still downloads.
);

/** An http(s) address without credentials, or undefined. */
function siteUrlFrom(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const problem = ['"site_url" must be the http(s) address of the docs site, e.g. https://docs.example.com.'];
  if (typeof value !== 'string' || value.length > 2048) throw new HttpError('invalid_request', { details: problem });
  try {
    const url = new URL(value);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '')
      throw new Error('not a site');
    return url.toString();
  } catch {
    throw new HttpError('invalid_request', { details: problem });
  }
}

export const readerConversationRoutes: FastifyPluginAsync<ReaderConversationRoutesOptions> = async (app, { conversations, rateLimit }) => {
  const limited = { config: { rateLimit: { max: rateLimit.max, timeWindow: rateLimit.windowMs } } };

  app.get<{ Params: ConversationIdParams; Querystring: Static<typeof exportQuerySchema> }>(
    '/conversations/:id/export',
    { schema: { params: conversationIdParamsSchema, querystring: exportQuerySchema } },
    async (request, reply) => {
      const { id } = request.params;
      const siteUrl = siteUrlFrom(request.query.site_url);
      const conversation = await unavailableAs503(conversations.run((store) => store.getConversation(id)));
      if (!conversation) throw new HttpError('conversation_not_found');
      const day = conversation.createdAt.slice(0, 10);
      return reply
        .header('content-type', 'text/markdown; charset=utf-8')
        .header('content-disposition', `attachment; filename="docs-chat-conversation-${day}.md"`)
        .header('cache-control', 'no-store')
        .send(conversationToMarkdown(conversation, siteUrl === undefined ? {} : { siteUrl }));
    },
  );

  app.post<{ Params: ConversationIdParams }>(
    '/conversations/:id/share',
    { ...limited, schema: { params: conversationIdParamsSchema } },
    async (request, reply): Promise<ShareBody> => {
      const { id } = request.params;
      const shareId = newShareId();
      const created = await unavailableAs503(conversations.run((store) => store.createShare(id, shareId)));
      if (!created) throw new HttpError('conversation_not_found');
      request.log.info({ shareCreated: true }, 'conversation shared');
      reply.code(201);
      return { share_id: shareId, path: `/shared/${shareId}` };
    },
  );

  app.get<{ Params: { shareId: string } }>('/shared/:shareId', async (request, reply): Promise<SharedConversationBody> => {
    const { shareId } = request.params;
    if (!SHARE_ID_PATTERN.test(shareId)) throw new HttpError('share_not_found');
    const conversation = await unavailableAs503(conversations.run((store) => store.getSharedConversation(shareId)));
    if (!conversation) throw new HttpError('share_not_found');
    // A deleted conversation must stop showing at once; and a shared page is nobody's to index.
    reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex');
    return {
      share_id: shareId,
      created_at: conversation.createdAt,
      messages: conversation.messages.flatMap((message) =>
        message.role === 'system'
          ? []
          : [
              {
                role: message.role,
                content: message.content,
                sources: message.sources,
                status: message.status,
                created_at: message.createdAt,
              },
            ],
      ),
    };
  });

  app.delete<{ Params: ConversationIdParams }>(
    '/conversations/:id',
    { ...limited, schema: { params: conversationIdParamsSchema } },
    async (request, reply) => {
      const { id } = request.params;
      const deleted = await unavailableAs503(conversations.run((store) => store.deleteConversation(id)));
      if (!deleted) throw new HttpError('conversation_not_found');
      request.log.info({ conversationDeleted: true }, 'conversation deleted by its reader');
      return reply.code(204).send();
    },
  );
};
