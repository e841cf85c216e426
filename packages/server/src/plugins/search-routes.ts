/** `GET /search?q=&k=[&explain=true][&version=&locale=&docs_instance=]`: the best chunks as JSON, for search without chat. */
import type { FastifyPluginAsync } from 'fastify';
import { MAX_MESSAGE_CHARS, SCOPE_VALUE } from '@docs-chat/core/protocol';
import type { RetrievalHandle } from '../chat/chat-service.js';
import { describeError } from '../chat/conversation-gateway.js';
import { isDocsChatError } from '../core-api.js';
import type { RequestedScope, SearchExplanation } from '../core-api.js';
import { HttpError } from '../http-errors.js';
import { clientDisconnectSignal } from './client-disconnect.js';

export const MAX_SEARCH_RESULTS = 20;
const DEFAULT_SEARCH_RESULTS = 5;
const EXCERPT_CHARS = 300;

export interface SearchRoutesOptions {
  retrieval: RetrievalHandle;
  rateLimit: { max: number; windowMs: number };
}

export interface SearchResultBody {
  rank: number;
  score: number;
  file: string;
  title: string;
  heading: string | null;
  headingPath: string[];
  url: string;
  excerpt: string;
  /** Docs version, locale and untranslated-page note, on an index of a whole site. */
  version?: string;
  locale?: string;
  fallback_locale?: string;
}

export interface SearchResponseBody {
  query: string;
  results: SearchResultBody[];
  out_of_scope: boolean;
  confidence: number;
  /** With `explain=true`: the words added to the question and the out-of-scope signals (as `docs-chat search --explain`). */
  explanation?: SearchExplanation;
  /** On an index of a whole site: the version and locale searched, and the asked values the index does not hold. */
  scope?: { version: string; version_label: string; locale: string; reader_version?: string; ignored: string[] };
}

export const searchRoutes: FastifyPluginAsync<SearchRoutesOptions> = async (app, { retrieval, rateLimit }) => {
  app.get<{ Querystring: Record<string, string | string[] | undefined> }>(
    '/search',
    // Each search costs an embedding call, so it shares the chat's budget shape (with its own counter).
    { config: { rateLimit: { max: rateLimit.max * 3, timeWindow: rateLimit.windowMs } } },
    async (request, reply): Promise<SearchResponseBody> => {
      const { q, k, explain, version, locale, docs_instance: docsInstance } = request.query;
      const problems: string[] = [];
      const query = typeof q === 'string' ? q.trim() : '';
      if (query.length === 0) problems.push('Add the text to search for as "q", e.g. /search?q=configure+the+store.');
      else if (query.length > MAX_MESSAGE_CHARS) problems.push(`"q" is ${query.length} characters; the limit is ${MAX_MESSAGE_CHARS}.`);
      let limit = DEFAULT_SEARCH_RESULTS;
      if (k !== undefined) {
        const value = typeof k === 'string' && /^\d+$/.test(k) ? Number(k) : Number.NaN;
        if (!Number.isInteger(value) || value < 1 || value > MAX_SEARCH_RESULTS) {
          problems.push(`"k" must be a whole number from 1 to ${MAX_SEARCH_RESULTS} (default ${DEFAULT_SEARCH_RESULTS}).`);
        } else limit = value;
      }
      if (explain !== undefined && explain !== 'true' && explain !== 'false') {
        problems.push('"explain" must be true or false (default false).');
      }
      const scope: RequestedScope = {};
      for (const [field, value] of [['version', version], ['locale', locale], ['docs_instance', docsInstance]] as const) {
        if (value === undefined) continue;
        if (typeof value !== 'string' || !SCOPE_VALUE.test(value)) {
          problems.push(`"${field}" must be a name like "2.0", "current" or "fr" (letters, digits, ".", "_", "-"; at most 64 characters).`);
        } else if (field === 'docs_instance') scope.instance = value;
        else scope[field] = value;
      }
      if (problems.length > 0) throw new HttpError('invalid_request', { details: problems });

      try {
        const response = await retrieval.retriever.search(query, { k: limit, signal: clientDisconnectSignal(reply), explain: explain === 'true', scope });
        const body: SearchResponseBody = {
          query,
          results: response.hits.map((hit) => ({
            rank: hit.rank,
            score: hit.score,
            file: hit.chunk.file,
            title: hit.chunk.title,
            heading: hit.chunk.heading,
            headingPath: hit.chunk.headingPath,
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
          throw new HttpError('service_busy', { retryAfterSeconds: Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000)) });
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
