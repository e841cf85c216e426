import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import SearchResults, { optionId } from '@theme/SearchResults';
import { rememberSearch } from '../../search-client/recent-searches.js';
import { searchOptions } from '../../search-client/search-options.js';
import { useListboxNavigation } from '../../search-client/use-listbox-navigation.js';
import { MIN_QUERY_CHARS, useSearch } from '../../search-client/use-search.js';
import { useOpenResult } from '../../theme-support/use-open-result.js';
import { useSearchClient } from '../../theme-support/use-search-client.js';
import { SearchStatus, searchAnnouncement } from '../SearchModal/search-status.js';
import hidden from '../../theme-support/visually-hidden.module.css';
import styles from './styles.module.css';

export interface Props {
  /** Shown (the panel is in search mode); the input takes focus when it becomes active. */
  readonly active: boolean;
  /** "Ask the docs about …": back to the chat, asking the query. */
  readonly onAsk: (question: string) => void;
  /** Escape in an empty search box: back to the chat. */
  readonly onExit: () => void;
  /** A result was opened (the panel may get out of the way on a phone). */
  /** Called with the result's target when the reader opens it (the panel may close itself on phones). */
  readonly onNavigate?: (href: string) => void;
  readonly fetch?: typeof fetch;
}

/** The chat panel's search mode: the same results as the navbar search, keyboard first. */
export default function PanelSearch({ active, onAsk, onExit, onNavigate, fetch: fetchImpl }: Props): ReactNode {
  const listboxId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const client = useSearchClient(fetchImpl);
  const state = useSearch(query, client);
  const openResult = useOpenResult();

  useEffect(() => {
    if (active) inputRef.current?.focus();
  }, [active]);

  const options = useMemo(() => searchOptions(state, query, { recent: [], offerAsk: true }), [state, query]);

  const choose = useCallback(
    (index: number) => {
      const option = options[index];
      if (!option || option.kind === 'recent') return;
      rememberSearch(query);
      if (option.kind === 'ask') {
        setQuery('');
        onAsk(option.question);
        return;
      }
      openResult(option.hit.url);
      onNavigate?.(option.hit.url);
    },
    [options, query, onAsk, openResult, onNavigate],
  );

  const escape = useCallback(() => {
    if (query !== '') setQuery('');
    else onExit();
  }, [query, onExit]);
  const navigation = useListboxNavigation(options.length, options, { onChoose: choose, onEscape: escape });
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>): void => {
    navigation.onKeyDown(event);
    // Handled here: the panel must not also close on this Escape.
    if (event.key === 'Escape') event.stopPropagation();
  };

  const label = translate({
    id: 'docsChat.search.label',
    message: 'Search the docs',
    description: 'Accessible name of the search dialog and its input',
  });
  const expanded = options.length > 0;

  return (
    <div className={`docs-chat-panel-search ${styles.panelSearch}`} hidden={!active}>
      <div className={styles.inputRow}>
        <input
          ref={inputRef}
          type="search"
          role="combobox"
          aria-label={label}
          aria-autocomplete="list"
          aria-expanded={expanded}
          aria-controls={expanded ? listboxId : undefined}
          {...(expanded && navigation.activeIndex >= 0 ? { 'aria-activedescendant': optionId(listboxId, navigation.activeIndex) } : {})}
          className={styles.input}
          placeholder={translate({
            id: 'docsChat.search.placeholder',
            message: 'Search the docs…',
            description: 'Placeholder of the search input',
          })}
          autoComplete="off"
          spellCheck={false}
          enterKeyHint="go"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={onKeyDown}
        />
      </div>
      {/* Focusable so the results scroll from the keyboard too; the arrows in the box move the active row. */}
      <div className={styles.results} tabIndex={0}>
        <SearchStatus state={state} query={query} showingRecent={false} minChars={MIN_QUERY_CHARS} />
        {expanded && (
          <SearchResults
            id={listboxId}
            label={translate({
              id: 'docsChat.search.results',
              message: 'Search results',
              description: 'Accessible name of the list of search results',
            })}
            options={options}
            activeIndex={navigation.activeIndex}
            onChoose={choose}
            onActivate={navigation.setActiveIndex}
          />
        )}
      </div>
      {/* Only while searching: the panel's own live region announces the answers. */}
      {active && (
        <div className={hidden.visuallyHidden} aria-live="polite" aria-atomic="true">
          {searchAnnouncement(state)}
        </div>
      )}
    </div>
  );
}
