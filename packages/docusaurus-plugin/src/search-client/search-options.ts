/** The rows of a search combobox's listbox, from the state of the search. */
import { groupByPage, type SearchOption } from './search-results.js';
import type { SearchState } from './use-search.js';

/** Hits grouped by page, the recent searches while nothing is typed, and the row that asks the chat. */
export function searchOptions(
  state: SearchState,
  query: string,
  options: { recent: readonly string[]; offerAsk: boolean },
): SearchOption[] {
  const trimmed = query.trim();
  const rows: SearchOption[] = [];
  const outcome = state.status === 'done' ? state.outcome : state.status === 'searching' ? state.previous : null;
  if (trimmed === '') {
    for (const recent of options.recent) rows.push({ kind: 'recent', query: recent });
    return rows;
  }
  if (outcome && state.status !== 'idle') {
    for (const group of groupByPage(outcome.hits)) for (const hit of group.hits) rows.push({ kind: 'hit', hit });
  }
  if (options.offerAsk && trimmed.length > 0) rows.push({ kind: 'ask', question: trimmed });
  return rows;
}
