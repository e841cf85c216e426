/** `GET /search?q=&k=[&explain=true][&version=&locale=&docs_instance=]`: the best chunks as JSON, for search without chat. */
import type { FastifyPluginAsync } from 'fastify';
import {
  MAX_MESSAGE_CHARS,
  SCOPE_VALUE,
  searchResponseSchema,
  Wire,
  type SearchResponse,
  type SearchResult,
  type Static,
} from '@docs-chat/core/protocol';
import type { RetrievalHandle } from '../chat/chat-service.js';
import { describeError } from '../chat/conversation-gateway.js';
import { isDocsChatError } from '../core-api.js';
import type { RequestedScope, SearchExplanation } from '../core-api.js';
import { HttpError, retryAfterSecondsFor } from '../http-errors.js';
import { clientDisconnectSignal } from './client-disconnect.js';

export const MAX_SEARCH_RESULTS = 20;
const DEFAULT_SEARCH_RESULTS = 5;
const EXCERPT_CHARS = 300;

const scopeName = (): ReturnType<typeof Wire.string> =>
  Wire.string({
    pattern: SCOPE_VALUE.source,
    problem: 'must be a name like "2.0", "current" or "fr" (letters, digits, ".", "_", "-"; at most 64 characters).',
  });

/** The query string of `GET /search`; each parameter once (a repeated one arrives as a list and is refused). */
export const searchQuerySchema = Wire.object(
  {
    q: Wire.string({
      maxLength: MAX_MESSAGE_CHARS,
      pattern: '\\S',
      problem: 'must hold the text to search for, e.g. /search?q=configure+the+store.',
    }),
    k: Wire.optional(
      Wire.string({
        pattern: '^(?:[1-9]|1[0-9]|20)$',
        problem: `must be a whole number from 1 to ${MAX_SEARCH_RESULTS} (default ${DEFAULT_SEARCH_RESULTS}).`,
      }),
    ),
    explain: Wire.optional(Wire.oneOf(['true', 'false'], { problem: 'must be true or false (default false).' })),
    version: Wire.optional(scopeName()),
    locale: Wire.optional(scopeName()),
    docs_instance: Wire.optional(scopeName()),
  },
  { problem: '— add the text to search for as "q", e.g. /search?q=configure+the+store.' },
);

export interface SearchRoutesOptions {
  retrieval: RetrievalHandle;
  rateLimit: { max: number; windowMs: number };
}

export type SearchResultBody = SearchResult;

/** The protocol's `SearchResponse`, with the explanation typed as core gives it. */
export type SearchResponseBody = SearchResponse & { explanation?: SearchExplanation };

export const searchRoutes: FastifyPluginAsync<SearchRoutesOptions> = async (app, { retrieval, rateLimit }) => {
  app.get<{ Querystring: Static<typeof searchQuerySchema> }>(
    '/search',
    {
      // Each search costs an embedding call, so it shares the chat's budget shape (with its own counter).
      config: { rateLimit: { max: rateLimit.max * 3, timeWindow: rateLimit.windowMs } },
      // The response schema serializes with fast-json-stringify: 1.2 to 1.6 times faster than JSON.stringify on
      // bodies of 5 and 20 results (eval/src/bench-search-serialization.ts), and it sends no field it does not list.
      schema: { querystring: searchQuerySchema, response: { 200: searchResponseSchema } },
    },
    async (request, reply): Promise<SearchResponseBody> => {
      const { q, k, explain, version, locale, docs_instance: docsInstance } = request.query;
      const query = q.trim();
      const limit = k === undefined ? DEFAULT_SEARCH_RESULTS : Number(k);
      const scope: RequestedScope = {
        ...(version !== undefined ? { version } : {}),
        ...(locale !== undefined ? { locale } : {}),
        ...(docsInstance !== undefined ? { instance: docsInstance } : {}),
      };

      try {
        const response = await retrieval.retriever.search(query, {
          k: limit,
          signal: clientDisconnectSignal(reply),
          explain: explain === 'true',
          scope,
        });
        const body: SearchResponseBody = {
          query,
          results: response.hits.map((hit) => ({
            rank: hit.rank,
            score: hit.score,
            file: hit.chunk.file,
            title: hit.chunk.title,
            heading: hit.chunk.heading,
            heading_path: hit.chunk.headingPath,
            url: hit.chunk.url,
            excerpt: excerpt(hit.chunk.text),
            ...(hit.chunk.version !== undefined ? { version: hit.chunk.version } : {}),
            ...(hit.chunk.locale !== undefined ? { locale: hit.chunk.locale } : {}),
            ...(hit.chunk.fallbackLocale !== undefined ? { fallback_locale: hit.chunk.fallbackLocale } : {}),
          })),
          out_of_scope: response.outOfScope,
          confidence: response.confidence,
        };
        if (response.explanation) body.explanation = response.explanation;
        if (response.scope) {
          const applied = response.scope;
          body.scope = {
            version: applied.version,
            version_label: applied.versionLabel,
            locale: applied.locale,
            ...(applied.readerVersion ? { reader_version: applied.readerVersion } : {}),
            ignored: applied.ignored,
          };
        }
        return body;
      } catch (error) {
        if (isDocsChatError(error) && error.code === 'query_invalid') {
          throw new HttpError('invalid_request', { details: [error.hint ? `${error.message} ${error.hint}` : error.message] });
        }
        if (isDocsChatError(error) && error.code === 'service_busy') {
          request.log.warn({ err: describeError(error) }, 'search refused: the embedder queue is full');
          throw new HttpError('service_busy', { retryAfterSeconds: retryAfterSecondsFor(error.retryAfterMs) });
        }
        request.log.error({ err: describeError(error) }, 'search failed');
        throw new HttpError('search_unavailable');
      }
    },
  );
};

/** The start of a chunk, cut on a word boundary. */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= EXCERPT_CHARS) return flat;
  const cut = flat.slice(0, EXCERPT_CHARS);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > EXCERPT_CHARS * 0.7 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}
