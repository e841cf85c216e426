import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import { useTextSelection } from '../../chat-client/use-text-selection.js';
import { describeShortcut, isApplePlatform, matchesShortcut, parseShortcut, type KeyboardShortcut } from '../../chat-client/keyboard-shortcut.js';
import { useDocsChatSettings } from '../../theme-support/use-docs-chat-settings.js';
import PanelErrorBoundary from './panel-error-boundary.js';
import styles from './styles.module.css';

// The panel (chat state, markdown, stream client) is a separate chunk fetched on
// first use, so pages only pay for the launcher until a reader asks something.
const loadPanel = () => import('@theme/ChatPanel');
const ChatPanel = lazy(loadPanel);

/** The shortcut in the form aria-keyshortcuts expects, e.g. "Control+I". */
function ariaKeyShortcuts(shortcut: KeyboardShortcut): string {
  const modifiers = [shortcut.ctrl && 'Control', shortcut.meta && 'Meta', shortcut.alt && 'Alt', shortcut.shift && 'Shift'].filter(Boolean);
  return [...modifiers, shortcut.key.length === 1 ? shortcut.key.toUpperCase() : shortcut.key].join('+');
}

export interface Props {
  /** Passed to the panel; tests use it to serve real SSE frames. */
  readonly fetch?: typeof fetch;
}

/** The launcher, the keyboard shortcut, the "Ask about selection" offer and the lazily loaded panel. */
export default function ChatWidget({ fetch: fetchImpl }: Props = {}): ReactNode {
  const settings = useDocsChatSettings();
  const [open, setOpen] = useState(false);
  const [panelLoaded, setPanelLoaded] = useState(false);
  // Bumped by "Start new" after a panel failure: a fresh panel, a fresh conversation.
  const [panelGeneration, setPanelGeneration] = useState(0);
  const [activeSelection, setActiveSelection] = useState<string | null>(null);
  const widgetRef = useRef<HTMLDivElement>(null);
  const launcherRef = useRef<HTMLButtonElement>(null);
  const returnFocusRef = useRef(false);

  const { selection, clear: clearSelection } = useTextSelection({
    enabled: settings.selectionMode,
    contentSelector: settings.contentSelector,
    ignoreInside: widgetRef,
  });

  const openPanel = useCallback((selectedText: string | null) => {
    if (selectedText !== null) setActiveSelection(selectedText);
    setPanelLoaded(true);
    setOpen(true);
  }, []);

  const closePanel = useCallback(() => {
    returnFocusRef.current = true;
    setOpen(false);
  }, []);

  // Escape or Close hands focus back to the launcher, where the reader started.
  useEffect(() => {
    if (!open && returnFocusRef.current) {
      returnFocusRef.current = false;
      launcherRef.current?.focus();
    }
  }, [open]);

  // While selection mode is active, a new selection in the page replaces the old one.
  useEffect(() => {
    if (open && activeSelection !== null && selection !== null && selection.text !== activeSelection) {
      setActiveSelection(selection.text);
      clearSelection();
    }
  }, [open, activeSelection, selection, clearSelection]);

  // The platform is known only in the browser: render the server's guess (Ctrl) first, then
  // switch after hydration so the server and client HTML agree.
  const [apple, setApple] = useState(false);
  useEffect(() => setApple(isApplePlatform()), []);
  const shortcut = useMemo(() => (settings.shortcut ? parseShortcut(settings.shortcut, apple) : null), [settings.shortcut, apple]);
  const stateRef = useRef({ open, selection });
  stateRef.current = { open, selection };

  useEffect(() => {
    if (!shortcut) return undefined;
    const onKeyDown = (event: KeyboardEvent): void => {
      if (!matchesShortcut(event, shortcut)) return;
      event.preventDefault();
      const current = stateRef.current;
      if (current.open) closePanel();
      // With text selected, the shortcut asks about it: the keyboard path to selection mode.
      else openPanel(current.selection?.text ?? null);
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [shortcut, openPanel, closePanel]);

  const shortcutLabel = settings.shortcut ? describeShortcut(settings.shortcut, apple) : null;
  // The visible text must be part of the accessible name (WCAG 2.5.3, label in name).
  const launcherLabel = translate({ id: 'docsChat.launcher.label', message: 'Ask the docs', description: 'Text of the button that opens the chat' });
  const launcherName = shortcutLabel
    ? translate(
        { id: 'docsChat.launcher.accessibleName', message: 'Ask the docs ({shortcut})', description: 'Accessible name of the launcher button' },
        { shortcut: shortcutLabel },
      )
    : translate({ id: 'docsChat.launcher.accessibleNameNoShortcut', message: 'Ask the docs', description: 'Accessible name of the launcher without a shortcut' });

  const showSelectionOffer = selection !== null && !(open && activeSelection === selection.text);
  const offerStyle =
    selection?.rect && typeof window !== 'undefined'
      ? {
          position: 'absolute' as const,
          top: `${selection.rect.bottom + window.scrollY + 8}px`,
          left: `${Math.max(8, Math.min(selection.rect.left + window.scrollX, window.scrollX + window.innerWidth - 220))}px`,
        }
      : undefined;

  return (
    <div ref={widgetRef} className="docs-chat-widget">
      {showSelectionOffer && (
        <button
          type="button"
          className={`docs-chat-ask-selection ${styles.selectionOffer} ${offerStyle ? '' : styles.selectionOfferDocked}`}
          style={offerStyle}
          data-side={settings.panel.side}
          // Keep the page selection alive: a mousedown on a button would otherwise clear it in some browsers.
          onMouseDown={(event) => event.preventDefault()}
          onClick={() => {
            openPanel(selection.text);
            clearSelection();
          }}
          {...(shortcutLabel ? { title: shortcutLabel } : {})}
        >
          {translate({ id: 'docsChat.selection.ask', message: 'Ask about selection', description: 'Button offered when text is selected in the page' })}
        </button>
      )}
      <div className={styles.corner} data-side={settings.panel.side}>
        <button
          ref={launcherRef}
          type="button"
          className={`docs-chat-launcher ${styles.launcher}`}
          aria-label={launcherName}
          aria-haspopup="dialog"
          aria-expanded={open}
          {...(open ? { 'aria-controls': 'docs-chat-panel' } : {})}
          {...(shortcut ? { 'aria-keyshortcuts': ariaKeyShortcuts(shortcut) } : {})}
          hidden={open}
          onClick={() => openPanel(null)}
          // Start fetching the panel as soon as the reader shows intent.
          onPointerEnter={() => void loadPanel()}
          onFocus={() => void loadPanel()}
        >
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
            <path
              fill="currentColor"
              d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2zm3 5v2h2V9H7zm4 0v2h2V9h-2zm4 0v2h2V9h-2z"
            />
          </svg>
          <span aria-hidden="true">{launcherLabel}</span>
        </button>
      </div>
      {panelLoaded && (
        <PanelErrorBoundary
          fallback={(reset) =>
            open && (
              <div className={`docs-chat-panel-failed ${styles.loading} ${styles.failed}`} role="alert" data-side={settings.panel.side}>
                <p>
                  {translate({
                    id: 'docsChat.panel.failed',
                    message: 'The assistant hit a problem and closed this conversation. The page is fine.',
                    description: 'Shown in place of the chat panel after it failed to render',
                  })}
                </p>
                <button
                  type="button"
                  onClick={() => {
                    setPanelGeneration((value) => value + 1);
                    reset();
                  }}
                >
                  {translate({ id: 'docsChat.panel.failedStartNew', message: 'Start new', description: 'Button that reopens a fresh chat panel after a failure' })}
                </button>{' '}
                <button type="button" onClick={closePanel}>
                  {translate({ id: 'docsChat.panel.failedClose', message: 'Close', description: 'Button that hides the failure message' })}
                </button>
              </div>
            )
          }
        >
          <Suspense
            fallback={
              <p className={styles.loading} role="status" data-side={settings.panel.side}>
                {translate({ id: 'docsChat.panel.loading', message: 'Opening the assistant…', description: 'Shown while the chat panel loads' })}
              </p>
            }
          >
            <ChatPanel
              key={panelGeneration}
              open={open}
              onClose={closePanel}
              settings={settings}
              selection={activeSelection}
              onExitSelection={() => setActiveSelection(null)}
              {...(fetchImpl ? { fetch: fetchImpl } : {})}
            />
          </Suspense>
        </PanelErrorBoundary>
      )}
    </div>
  );
}
