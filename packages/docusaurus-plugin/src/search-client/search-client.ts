/**
 * Search for the widget, server first: where the docs-chat server answers,
 * `GET /search` (hybrid retrieval, the better ranking) gives the results;
 * when it is not configured, down, slow or failing, the static index answers
 * in the browser, without an error on screen. A server that failed is left
 * alone for a while, so a reader typing does not wait for it at every key.
 */
import { MAX_QUERY_CHARS } from '../static-search/search-engine.js';
import { loadStaticSearchEngine } from './static-index-loader.js';
import { searchServer, ServerSearchError } from './server-search.js';
import type { ReaderScope } from '../chat-client/reader-scope.js';
import { SearchUnavailableError, type SearchHitView, type SearchOutcome } from './search-results.js';

/** How long the server gets to answer one search before the static index answers instead. */
export const SERVER_SEARCH_TIMEOUT_MS = 800;
/** After the server failed, how long searches go straight to the static index. */
export const SERVER_RETRY_AFTER_MS = 30_000;
/** Sections a search returns. */
export const SEARCH_RESULT_LIMIT = 10;

export interface SearchClientOptions {
  /** The reader's docs version and locale, read at each search; the server keeps its results to them. */
  getScope?: () => ReaderScope | undefined;
  /** The docs-chat server, without a trailing slash; null to search in the browser only. */
  serverUrl: string | null;
  /** `<baseUrl>docs-chat/search-manifest.json`; null when the build wrote no static index. */
  manifestUrl: string | null;
  fetch?: typeof fetch;
  now?: () => number;
}

export interface SearchClient {
  search(query: string, signal?: AbortSignal): Promise<SearchOutcome>;
}

// Shared by every search box on the page (the navbar and the chat panel): one server, one memory of its failures.
const serverFailedAt = new Map<string, number>();

/** Forgets which servers failed (tests). */
export function forgetServerFailures(): void {
  serverFailedAt.clear();
}

export function createSearchClient(options: SearchClientOptions): SearchClient {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? Date.now;

  function serverUsable(): boolean {
    if (!options.serverUrl) return false;
    const failedAt = serverFailedAt.get(options.serverUrl);
    return failedAt === undefined || now() - failedAt >= SERVER_RETRY_AFTER_MS;
  }

  async function searchStatic(query: string): Promise<SearchHitView[]> {
    if (!options.manifestUrl)
      throw new SearchUnavailableError('This site has no static search index and the docs-chat server does not answer.');
    const engine = await loadStaticSearchEngine(options.manifestUrl, fetchImpl, now);
    return engine.search(query, { limit: SEARCH_RESULT_LIMIT }).hits.map((hit) => ({
      url: hit.url,
      pageUrl: hit.pageUrl,
      title: hit.highlightedTitle,
      headings: hit.highlightedHeadings,
      snippet: hit.snippet,
    }));
  }

  return {
    async search(rawQuery, signal) {
      const query = rawQuery.trim().slice(0, MAX_QUERY_CHARS);
      if (serverUsable() && options.serverUrl) {
        try {
          const hits = await searchServer({
            serverUrl: options.serverUrl,
            query,
            limit: SEARCH_RESULT_LIMIT,
            timeoutMs: SERVER_SEARCH_TIMEOUT_MS,
            signal,
            fetch: fetchImpl,
            scope: options.getScope?.(),
          });
          // Nothing found for a word still being typed: the static index also matches its beginning.
          if (hits.length > 0 || !options.manifestUrl) return { query, source: 'server', hits };
        } catch (error) {
          if (!(error instanceof ServerSearchError)) throw error;
          if (error.serverUnwell) serverFailedAt.set(options.serverUrl, now());
        }
      }
      return { query, source: 'static', hits: await searchStatic(query) };
    },
  };
}
