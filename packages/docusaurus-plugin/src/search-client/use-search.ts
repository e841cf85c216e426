/** React state of a search box: debounced, the latest query wins, an older answer never overwrites a newer one. */
import { useEffect, useState } from 'react';
import type { SearchClient } from './search-client.js';
import { SearchUnavailableError, type SearchOutcome } from './search-results.js';

/** Fewest characters searched for: one letter matches half the docs. */
export const MIN_QUERY_CHARS = 2;
/** Wait this long after the last key before searching, so fast typing sends one search, not one per key. */
export const SEARCH_DEBOUNCE_MS = 120;

export type SearchState =
  | { status: 'idle' }
  /** `previous` stays on screen while the next results load, so the list does not flicker. */
  | { status: 'searching'; query: string; previous: SearchOutcome | null }
  | { status: 'done'; outcome: SearchOutcome }
  | { status: 'unavailable'; query: string };

export function useSearch(query: string, client: SearchClient, options: { debounceMs?: number } = {}): SearchState {
  const debounceMs = options.debounceMs ?? SEARCH_DEBOUNCE_MS;
  const [state, setState] = useState<SearchState>({ status: 'idle' });
  const trimmed = query.trim();

  useEffect(() => {
    if (trimmed.length < MIN_QUERY_CHARS) {
      setState({ status: 'idle' });
      return undefined;
    }
    setState((previous) => ({
      status: 'searching',
      query: trimmed,
      previous: previous.status === 'done' ? previous.outcome : previous.status === 'searching' ? previous.previous : null,
    }));
    const controller = new AbortController();
    const timer = setTimeout(() => {
      client.search(trimmed, controller.signal).then(
        (outcome) => {
          if (!controller.signal.aborted) setState({ status: 'done', outcome });
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          // Anything unexpected is shown the same way: the page must never break because search did.
          setState({ status: 'unavailable', query: trimmed });
          if (!(error instanceof SearchUnavailableError)) console.error('docs-chat search failed:', error);
        },
      );
    }, debounceMs);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [trimmed, client, debounceMs]);

  return state;
}
