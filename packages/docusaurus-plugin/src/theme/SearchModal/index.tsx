import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import SearchResults, { optionId } from '@theme/SearchResults';
import { askInChat } from '../../chat-client/ask-event.js';
import { clearRecentSearches, readRecentSearches, rememberSearch } from '../../search-client/recent-searches.js';
import { searchOptions } from '../../search-client/search-options.js';
import type { SearchOption } from '../../search-client/search-results.js';
import { useListboxNavigation } from '../../search-client/use-listbox-navigation.js';
import { MIN_QUERY_CHARS, useSearch } from '../../search-client/use-search.js';
import { useOpenResult } from '../../theme-support/use-open-result.js';
import { useSearchClient } from '../../theme-support/use-search-client.js';
import { SearchStatus, searchAnnouncement } from './search-status.js';
import hidden from '../../theme-support/visually-hidden.module.css';
import styles from './styles.module.css';

export interface Props {
  readonly open: boolean;
  /** `navigated`: a result was opened or the chat asked, so focus belongs elsewhere. */
  readonly onClose: (options?: { navigated?: boolean }) => void;
  /** For tests; the browser's fetch otherwise. */
  readonly fetch?: typeof fetch;
}

const FOCUSABLE = 'input, button:not([disabled]), [href], [tabindex]:not([tabindex="-1"])';

/** The search dialog the navbar's search button opens (loaded on first use). */
export default function SearchModal({ open, onClose, fetch: fetchImpl }: Props): ReactNode {
  const titleId = useId();
  const listboxId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const dialogRef = useRef<HTMLDivElement>(null);
  const [query, setQuery] = useState('');
  const [recent, setRecent] = useState<string[]>([]);
  const client = useSearchClient(fetchImpl);
  const state = useSearch(query, client);
  const openResult = useOpenResult();

  useEffect(() => {
    if (!open) return;
    setRecent(readRecentSearches());
    // Reopened: the last query is still there, selected, so typing replaces it.
    inputRef.current?.focus();
    inputRef.current?.select();
  }, [open]);

  const options = useMemo(() => searchOptions(state, query, { recent, offerAsk: true }), [state, query, recent]);

  const choose = useCallback(
    (index: number) => {
      const option: SearchOption | undefined = options[index];
      if (!option) return;
      if (option.kind === 'recent') {
        setQuery(option.query);
        return;
      }
      setRecent(rememberSearch(query));
      onClose({ navigated: true });
      if (option.kind === 'hit') openResult(option.hit.url);
      else askInChat(option.question);
    },
    [options, query, onClose, openResult],
  );

  const close = useCallback(() => onClose(), [onClose]);
  const navigation = useListboxNavigation(options.length, options, { onChoose: choose, onEscape: close });

  // Tab and Shift+Tab stay inside the dialog while it is open (aria-modal).
  const trapFocus = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (event.key !== 'Tab' || !dialogRef.current) return;
    const focusable = [...dialogRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => !element.hidden);
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!first || !last) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  const label = translate({
    id: 'docsChat.search.label',
    message: 'Search the docs',
    description: 'Accessible name of the search dialog and its input',
  });
  const expanded = options.length > 0;
  const showingRecent = query.trim() === '' && recent.length > 0;

  return (
    <div className={`docs-chat-search-modal ${styles.container}`} hidden={!open}>
      <div className={styles.backdrop} onMouseDown={close} aria-hidden="true" />
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className={styles.dialog}
        onKeyDown={trapFocus}
        data-search-source={state.status === 'done' ? state.outcome.source : undefined}
      >
        <h2 id={titleId} className={hidden.visuallyHidden}>
          {label}
        </h2>
        <div className={styles.inputRow}>
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false" className={styles.inputIcon}>
            <path
              fill="currentColor"
              d="M15.5 14h-.79l-.28-.27A6.47 6.47 0 0 0 16 9.5 6.5 6.5 0 1 0 9.5 16c1.61 0 3.09-.59 4.23-1.57l.27.28v.79l5 4.99L20.49 19l-4.99-5zm-6 0C7.01 14 5 11.99 5 9.5S7.01 5 9.5 5 14 7.01 14 9.5 11.99 14 9.5 14z"
            />
          </svg>
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
            autoCorrect="off"
            spellCheck={false}
            enterKeyHint="go"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={navigation.onKeyDown}
          />
          <button type="button" className={styles.closeButton} onClick={close}>
            <span aria-hidden="true">Esc</span>
            <span className={hidden.visuallyHidden}>
              {translate({
                id: 'docsChat.search.close',
                message: 'Close search',
                description: 'Accessible name of the button that closes the search dialog',
              })}
            </span>
          </button>
        </div>
        {/* Focusable so the results scroll from the keyboard too (long snippets); the arrows in the box move the active row. */}
        <div className={styles.body} tabIndex={0}>
          <SearchStatus state={state} query={query} showingRecent={showingRecent} minChars={MIN_QUERY_CHARS} />
          {expanded && (
            <SearchResults
              id={listboxId}
              label={
                showingRecent
                  ? translate({
                      id: 'docsChat.search.recent',
                      message: 'Recent searches',
                      description: "Heading of the list of the reader's last searches",
                    })
                  : translate({
                      id: 'docsChat.search.results',
                      message: 'Search results',
                      description: 'Accessible name of the list of search results',
                    })
              }
              options={options}
              activeIndex={navigation.activeIndex}
              onChoose={choose}
              onActivate={navigation.setActiveIndex}
            />
          )}
        </div>
        <footer className={styles.footer}>
          <span className={styles.keys} aria-hidden="true">
            <kbd>↑</kbd> <kbd>↓</kbd>{' '}
            {translate({ id: 'docsChat.search.hintMove', message: 'to move', description: 'Keyboard hint in the search dialog' })}{' '}
            <kbd>Enter</kbd>{' '}
            {translate({ id: 'docsChat.search.hintOpen', message: 'to open', description: 'Keyboard hint in the search dialog' })}{' '}
            <kbd>Esc</kbd>{' '}
            {translate({ id: 'docsChat.search.hintClose', message: 'to close', description: 'Keyboard hint in the search dialog' })}
          </span>
          {showingRecent && (
            <button
              type="button"
              className={styles.clearButton}
              onClick={() => {
                clearRecentSearches();
                setRecent([]);
                inputRef.current?.focus();
              }}
            >
              {translate({
                id: 'docsChat.search.clearRecent',
                message: 'Clear recent searches',
                description: 'Button that forgets the recent searches',
              })}
            </button>
          )}
        </footer>
        <div className={hidden.visuallyHidden} aria-live="polite" aria-atomic="true">
          {open ? searchAnnouncement(state) : ''}
        </div>
      </div>
    </div>
  );
}
