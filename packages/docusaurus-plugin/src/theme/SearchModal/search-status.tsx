import type { ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import type { SearchState } from '../../search-client/use-search.js';
import styles from './styles.module.css';

/** What the live region says once a search settles: how many results, none, or that search is unavailable. */
export function searchAnnouncement(state: SearchState): string {
  if (state.status === 'unavailable') return unavailableText();
  if (state.status !== 'done') return '';
  const count = state.outcome.hits.length;
  if (count === 0) return noResultsText(state.outcome.query);
  return count === 1
    ? translate({ id: 'docsChat.search.oneResult', message: '1 result', description: 'Announced when a search finds one section' })
    : translate(
        { id: 'docsChat.search.results.count', message: '{count} results', description: 'Announced when a search finds several sections' },
        { count },
      );
}

export function unavailableText(): string {
  return translate({
    id: 'docsChat.search.unavailable',
    message: 'Search is unavailable; rebuild the site.',
    description: 'Shown when neither the server nor the static search index can answer',
  });
}

function noResultsText(query: string): string {
  return translate(
    { id: 'docsChat.search.noResults', message: 'No results for “{query}”.', description: 'Shown when a search finds nothing' },
    { query },
  );
}

/** The line above the results: a hint, "Searching…", "No results", or why search cannot work. */
export function SearchStatus({
  state,
  query,
  showingRecent,
  minChars,
}: {
  state: SearchState;
  query: string;
  showingRecent: boolean;
  minChars: number;
}): ReactNode {
  const trimmed = query.trim();
  let text: string | null = null;
  let kind: 'hint' | 'problem' = 'hint';
  if (state.status === 'unavailable') {
    text = unavailableText();
    kind = 'problem';
  } else if (trimmed === '') {
    text = showingRecent
      ? null
      : translate({
          id: 'docsChat.search.hint',
          message: 'Type words from the section you are looking for.',
          description: 'Hint shown in an empty search dialog',
        });
  } else if (trimmed.length < minChars) {
    text = translate({
      id: 'docsChat.search.keepTyping',
      message: 'Keep typing…',
      description: 'Shown while the query is too short to search',
    });
  } else if (state.status === 'searching' && state.previous === null) {
    text = translate({ id: 'docsChat.search.searching', message: 'Searching…', description: 'Shown while the first results load' });
  } else if (state.status === 'done' && state.outcome.hits.length === 0) {
    text = noResultsText(state.outcome.query);
  }
  if (text === null) return null;
  return (
    <p className={`docs-chat-search-status ${kind === 'problem' ? styles.problem : styles.hint}`} data-kind={kind}>
      {text}
    </p>
  );
}
