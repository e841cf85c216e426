/** `GET /search` on the docs-chat server, with a short timeout: a search box cannot wait for a slow server. */
import { firstProblem, searchResultSchema, upgradeLegacySource, type SearchResult } from '@docs-chat/protocol';
import { endsInsideWord, tokenize } from '../static-search/text-analysis.js';
import { highlightMatches, snippetOf, type WordMatcher } from '../static-search/snippet.js';
import type { SearchHitView } from './search-results.js';
import { scopeQueryString, type ReaderScope } from '../chat-client/reader-scope.js';

/** A result as the protocol defines it; a server older than protocol 2.0 names `heading_path` `headingPath`. */
function serverResultFrom(value: unknown): SearchResult | null {
  const result = upgradeLegacySource(value);
  return firstProblem(searchResultSchema, result) === null ? (result as SearchResult) : null;
}

/** The server's results carry no match positions: mark the query's own words (and the one being typed, as a prefix). */
export function queryWordMatcher(query: string): WordMatcher {
  const tokens = tokenize(query);
  const terms = new Set(tokens.map((token) => token.term));
  const typed = endsInsideWord(query) ? tokens.at(-1)?.surface : undefined;
  return (term, surface) => terms.has(term) || (typed !== undefined && typed.length >= 2 && surface.startsWith(typed));
}

function pageOf(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

/** Thrown when the server does not answer in time, answers an error, or sends something else than search results. */
export class ServerSearchError extends Error {
  /** The HTTP status, when the server answered. */
  readonly status: number | null;
  constructor(message: string, status: number | null = null) {
    super(message);
    this.name = 'ServerSearchError';
    this.status = status;
  }

  /** Down, slow, overloaded or failing: worth leaving alone for a while (a 400 is about this query only). */
  get serverUnwell(): boolean {
    return this.status === null || this.status === 429 || this.status >= 500;
  }
}

export async function searchServer(options: {
  serverUrl: string;
  query: string;
  limit: number;
  timeoutMs: number;
  signal?: AbortSignal;
  fetch: typeof fetch;
  /** The reader's docs version and locale (sent as `version`, `docs_instance`, `locale`). */
  scope?: ReaderScope | undefined;
}): Promise<SearchHitView[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onAbort);
  try {
    let response: Response;
    try {
      response = await options.fetch(
        `${options.serverUrl}/search?q=${encodeURIComponent(options.query)}&k=${options.limit}${scopeQueryString(options.scope)}`,
        {
          headers: { accept: 'application/json' },
          signal: controller.signal,
        },
      );
    } catch {
      if (options.signal?.aborted) throw new DOMException('The search was replaced by a newer one.', 'AbortError');
      throw new ServerSearchError(
        controller.signal.aborted ? `The server did not answer within ${options.timeoutMs} ms.` : 'The server cannot be reached.',
      );
    }
    if (!response.ok) throw new ServerSearchError(`The server answered ${response.status}.`, response.status);
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      if (options.signal?.aborted) throw new DOMException('The search was replaced by a newer one.', 'AbortError');
      throw new ServerSearchError('The server sent something else than search results.');
    }
    const listed = (body as { results?: unknown } | null)?.results;
    const results = Array.isArray(listed) ? listed.map(serverResultFrom) : [null];
    if (results.some((result) => result === null)) throw new ServerSearchError('The server sent something else than search results.');
    const matcher = queryWordMatcher(options.query);
    return (results as SearchResult[]).map((result) => ({
      url: result.url,
      pageUrl: pageOf(result.url),
      title: highlightMatches(result.title, matcher),
      headings: result.heading_path.slice(1).map((heading) => highlightMatches(heading, matcher)),
      snippet: snippetOf(result.excerpt, matcher),
    }));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
