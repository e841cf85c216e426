import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import { describeShortcut, isApplePlatform, matchesShortcut, parseShortcut } from '../../chat-client/keyboard-shortcut.js';
import { SEARCH_SHORTCUT } from '../../client-settings/search-shortcut.js';
import styles from './styles.module.css';

// The dialog, the search client and the engine are a separate chunk fetched on first use:
// pages pay only for this button until a reader searches.
const loadModal = () => import('@theme/SearchModal');
const SearchModal = lazy(loadModal);

export interface Props {
  /** Passed to the dialog; tests use it to serve the server and the static index. */
  readonly fetch?: typeof fetch;
}

/** True when a key typed now goes into a text field, where `/` is just a character. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

/**
 * The navbar's search button: Ctrl+K (⌘K on macOS) or `/` open the search
 * dialog; the dialog itself loads on first use.
 */
export default function SearchBar({ fetch: fetchImpl }: Props = {}): ReactNode {
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  // The platform is known only in the browser: render Ctrl first (as the server does), then switch.
  const [apple, setApple] = useState(false);
  useEffect(() => setApple(isApplePlatform()), []);
  const shortcut = useMemo(() => parseShortcut(SEARCH_SHORTCUT, apple), [apple]);

  const openSearch = useCallback(() => {
    setLoaded(true);
    setOpen(true);
  }, []);
  // Closed without going anywhere (Escape, the close button, the backdrop): focus goes back to the button.
  // After opening a result or asking the chat, the reader is elsewhere: focus is left to the page or the panel.
  const closeSearch = useCallback((options?: { navigated?: boolean }) => {
    returnFocus.current = !options?.navigated;
    setOpen(false);
  }, []);

  useEffect(() => {
    if (!open && returnFocus.current) {
      returnFocus.current = false;
      buttonRef.current?.focus();
    }
  }, [open]);

  const stateRef = useRef(open);
  stateRef.current = open;
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      if (shortcut && matchesShortcut(event, shortcut)) {
        event.preventDefault();
        if (stateRef.current) closeSearch();
        else openSearch();
      } else if (event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && !stateRef.current && !isTyping(event.target)) {
        event.preventDefault();
        openSearch();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [shortcut, openSearch, closeSearch]);

  const shortcutLabel = describeShortcut(SEARCH_SHORTCUT, apple);
  const label = translate({ id: 'docsChat.searchBar.label', message: 'Search', description: 'Text of the navbar search button' });

  return (
    <>
      <button
        ref={buttonRef}
        type="button"
        className={`docs-chat-search-button ${styles.button}`}
        aria-label={translate(
          {
            id: 'docsChat.searchBar.accessibleName',
            message: 'Search ({shortcut})',
            description: 'Accessible name of the navbar search button',
          },
          { shortcut: shortcutLabel },
        )}
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-keyshortcuts={`${apple ? 'Meta' : 'Control'}+K /`}
        onClick={openSearch}
        // Start fetching the dialog as soon as the reader shows intent.
        onPointerEnter={() => void loadModal()}
        onFocus={() => void loadModal()}
      >
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <path
            fill="currentColor"
            d="M15.5 14h-.79l-.28-.27A6.47 6.47 0 0 0 16 9.5 6.5 6.5 0 1 0 9.5 16c1.61 0 3.09-.59 4.23-1.57l.27.28v.79l5 4.99L20.49 19l-4.99-5zm-6 0C7.01 14 5 11.99 5 9.5S7.01 5 9.5 5 14 7.01 14 9.5 11.99 14 9.5 14z"
          />
        </svg>
        <span className={styles.label} aria-hidden="true">
          {label}
        </span>
        {/* The hint is drawn by CSS (data-keys): as text it would make the visible label "Search Ctrl+K"
            differ from the accessible name "Search (Ctrl+K)" (WCAG 2.5.3, label in name). */}
        <kbd className={styles.keys} data-keys={shortcutLabel} aria-hidden="true" />
      </button>
      {loaded && (
        <Suspense fallback={null}>
          <SearchModal open={open} onClose={closeSearch} {...(fetchImpl ? { fetch: fetchImpl } : {})} />
        </Suspense>
      )}
    </>
  );
}
