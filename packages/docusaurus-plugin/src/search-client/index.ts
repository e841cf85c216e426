/** The search logic under the search box and the panel's search mode: server first, static index as fallback. Knows nothing of Docusaurus. */
export {
  createSearchClient,
  SERVER_SEARCH_TIMEOUT_MS,
  SERVER_RETRY_AFTER_MS,
  SEARCH_RESULT_LIMIT,
  type SearchClient,
  type SearchClientOptions,
} from './search-client.js';
export {
  SearchUnavailableError,
  groupByPage,
  type SearchHitView,
  type SearchHitGroup,
  type SearchOutcome,
  type SearchSource,
  type SearchOption,
  type HighlightedText,
} from './search-results.js';
export { useSearch, MIN_QUERY_CHARS, SEARCH_DEBOUNCE_MS, type SearchState } from './use-search.js';
export { useListboxNavigation, type ListboxNavigation } from './use-listbox-navigation.js';
export { searchOptions } from './search-options.js';
export { readRecentSearches, rememberSearch, clearRecentSearches, RECENT_SEARCHES_STORAGE_KEY } from './recent-searches.js';
export { loadStaticSearchEngine } from './static-index-loader.js';
