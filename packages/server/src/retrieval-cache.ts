/**
 * Remembers recent search results so that a question asked again (the widget's
 * suggested questions, a page's obvious question, retries) skips the query
 * embedding, which costs an API call with Gemini or OpenAI embeddings, and the
 * index scan. Only successful results are kept, for a bounded time; the admin
 * ingest replaces the retriever and with it the cache. An ingest run from the
 * CLI in another process is seen once entries expire (RETRIEVAL_CACHE_TTL_MS).
 */
import type { Retriever, SearchResponse } from './core-api.js';

export interface RetrievalCacheOptions {
  /** Entries kept; 0 turns the cache off. */
  maxEntries: number;
  ttlMs: number;
  now?: () => number;
}

interface Entry {
  response: SearchResponse;
  expiresAt: number;
}

/** Wraps a retriever; `search` answers from the cache when the same query was searched recently. */
export function withRetrievalCache(retriever: Retriever, options: RetrievalCacheOptions): Retriever {
  if (options.maxEntries <= 0) return retriever;
  const now = options.now ?? Date.now;
  // A Map keeps insertion order: re-inserting on a hit makes it a small LRU.
  const entries = new Map<string, Entry>();
  return {
    async search(query, searchOptions = {}) {
      const key = JSON.stringify([
        query.trim().replace(/\s+/g, ' '),
        searchOptions.k ?? null,
        searchOptions.filter ?? null,
        searchOptions.scope ?? null,
        searchOptions.explain === true,
      ]);
      const cached = entries.get(key);
      if (cached && cached.expiresAt > now()) {
        entries.delete(key);
        entries.set(key, cached);
        return cached.response;
      }
      if (cached) entries.delete(key);
      const response = await retriever.search(query, searchOptions);
      entries.set(key, { response, expiresAt: now() + options.ttlMs });
      if (entries.size > options.maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      return response;
    },
    neighbours: (chunkId, neighbourOptions) => retriever.neighbours(chunkId, neighbourOptions),
    documentOf: (chunkId, signal) => retriever.documentOf(chunkId, signal),
  };
}
