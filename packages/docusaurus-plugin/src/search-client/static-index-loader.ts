/**
 * Fetches the static search index on the first search, never on page load:
 * the manifest (revalidated, since its name never changes), then the
 * content-hashed index it names (cached by the browser like any hashed asset),
 * then builds the engine. One load per page session, shared by every search box.
 */
import { parseSearchIndex, parseSearchManifest, SearchIndexError } from '../static-search/index-format.js';
import { createSearchEngine, type StaticSearchEngine } from '../static-search/search-engine.js';
import { SearchUnavailableError } from './search-results.js';

/** After a failed load, searches fail fast for this long before the index is fetched again. */
const RETRY_FAILED_LOAD_AFTER_MS = 30_000;

const loads = new Map<string, { engine: Promise<StaticSearchEngine>; failedAt: number | null }>();

async function fetchJson(url: string, fetchImpl: typeof fetch, init: RequestInit, what: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchImpl(url, init);
  } catch {
    throw new SearchUnavailableError(`The ${what} could not be downloaded.`);
  }
  if (!response.ok) throw new SearchUnavailableError(`The ${what} is missing (HTTP ${response.status}).`);
  try {
    return await response.json();
  } catch {
    throw new SearchUnavailableError(`The ${what} is damaged (not JSON).`);
  }
}

async function load(manifestUrl: string, fetchImpl: typeof fetch): Promise<StaticSearchEngine> {
  try {
    const manifest = parseSearchManifest(await fetchJson(manifestUrl, fetchImpl, { cache: 'no-cache' }, 'search manifest'));
    // The index sits beside the manifest (its name is a plain file name, checked by parseSearchManifest).
    const indexUrl = `${manifestUrl.slice(0, manifestUrl.lastIndexOf('/') + 1)}${manifest.index}`;
    const index = parseSearchIndex(await fetchJson(indexUrl, fetchImpl, {}, 'search index'));
    return createSearchEngine(index);
  } catch (error) {
    if (error instanceof SearchIndexError) throw new SearchUnavailableError(error.message);
    throw error;
  }
}

/** The engine over the site's static index; rejects with SearchUnavailableError when the index cannot be used. */
export function loadStaticSearchEngine(
  manifestUrl: string,
  fetchImpl: typeof fetch = fetch,
  now: () => number = Date.now,
): Promise<StaticSearchEngine> {
  const known = loads.get(manifestUrl);
  if (known && (known.failedAt === null || now() - known.failedAt < RETRY_FAILED_LOAD_AFTER_MS)) return known.engine;
  const entry = { engine: load(manifestUrl, fetchImpl), failedAt: null as number | null };
  entry.engine.catch(() => {
    entry.failedAt = now();
  });
  loads.set(manifestUrl, entry);
  return entry.engine;
}

/** Forgets loaded indexes (tests). */
export function forgetLoadedIndexes(): void {
  loads.clear();
}
