import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import { onAskInChat } from '../../chat-client/ask-event.js';
import { SHARE_PARAMETER, shareIdFromLocation } from '../../chat-client/share-link.js';
import { useTextSelection } from '../../chat-client/use-text-selection.js';
import {
  describeShortcut,
  isApplePlatform,
  matchesShortcut,
  parseShortcut,
  type KeyboardShortcut,
} from '../../chat-client/keyboard-shortcut.js';
import { useDocsChatSettings } from '../../theme-support/use-docs-chat-settings.js';
import { useLauncherHidden } from '../../theme-support/use-launcher-hidden.js';
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

/** Room the offer needs, so it is never placed where it would be cut off. */
const OFFER_WIDTH = 220;
const OFFER_HEIGHT = 48;

/**
 * Under the selection when the selection's end is on screen, where the reader is looking;
 * undefined when it ends off screen (a whole page selected, say): the offer then waits in the
 * launcher's corner, where it can always be seen and clicked.
 */
function offerBelowSelection(
  rect: { bottom: number; left: number },
  openPanel: { side: 'left' | 'right'; width: number } | null,
): { position: 'absolute'; top: string; left: string } | undefined {
  if (typeof window === 'undefined') return undefined;
  if (rect.bottom < 0 || rect.bottom + 8 + OFFER_HEIGHT > window.innerHeight) return undefined;
  // Beside an open panel, stay on the page's side of it.
  const minLeft = 8 + (openPanel?.side === 'left' ? openPanel.width : 0);
  const maxLeft = window.innerWidth - OFFER_WIDTH - (openPanel?.side === 'right' ? openPanel.width : 0);
  return {
    position: 'absolute',
    top: `${rect.bottom + window.scrollY + 8}px`,
    left: `${Math.max(minLeft, Math.min(rect.left, maxLeft)) + window.scrollX}px`,
  };
}

/** The launcher, the keyboard shortcut, the "Ask about selection" offer and the lazily loaded panel. */
export default function ChatWidget({ fetch: fetchImpl }: Props = {}): ReactNode {
  const settings = useDocsChatSettings();
  // On pages the site lists in hideLauncherOn nothing invites a question (no launcher, no selection offer);
  // the shortcut and the search box's "Ask" still open the panel, and an open panel stays open.
  const launcherHidden = useLauncherHidden(settings.hideLauncherOn);
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

  // The panel only hides: its conversation and a streaming answer go on. Focus returns to the
  // launcher, unless the panel closed to show a cited section (which then takes focus).
  const closePanel = useCallback((options: { returnFocus?: boolean } = {}) => {
    returnFocusRef.current = options.returnFocus ?? true;
    setOpen(false);
  }, []);

  // Escape or Close hands focus back to the launcher, where the reader started.
  useEffect(() => {
    if (!open && returnFocusRef.current) {
      returnFocusRef.current = false;
      launcherRef.current?.focus();
    }
  }, [open]);

  // A page opened from a share link shows that conversation, read-only, in the panel.
  const [sharedId, setSharedId] = useState<string | null>(null);
  useEffect(() => {
    const id = shareIdFromLocation(window.location.search);
    if (id === null) return;
    setSharedId(id);
    openPanel(null);
  }, [openPanel]);
  const leaveShared = useCallback(() => {
    setSharedId(null);
    // The address loses the parameter, so a reload or a copied address no longer opens the share.
    const url = new URL(window.location.href);
    url.searchParams.delete(SHARE_PARAMETER);
    window.history.replaceState(window.history.state, '', url.toString());
  }, []);

  // "Ask the docs about …" from the search box: a general question, asked in the panel.
  const [question, setQuestion] = useState<{ text: string; key: number } | null>(null);
  useEffect(
    () =>
      onAskInChat((text) => {
        setActiveSelection(null);
        leaveShared();
        setQuestion((previous) => ({ text, key: (previous?.key ?? 0) + 1 }));
        openPanel(null);
      }),
    [openPanel, leaveShared],
  );

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
  const launcherLabel = translate({
    id: 'docsChat.launcher.label',
    message: 'Ask the docs',
    description: 'Text of the button that opens the chat',
  });
  const launcherName = shortcutLabel
    ? translate(
        {
          id: 'docsChat.launcher.accessibleName',
          message: 'Ask the docs ({shortcut})',
          description: 'Accessible name of the launcher button',
        },
        { shortcut: shortcutLabel },
      )
    : translate({
        id: 'docsChat.launcher.accessibleNameNoShortcut',
        message: 'Ask the docs',
        description: 'Accessible name of the launcher without a shortcut',
      });

  const showSelectionOffer = selection !== null && !(open && activeSelection === selection.text) && (open || !launcherHidden);
  const offerStyle = selection?.rect ? offerBelowSelection(selection.rect, open ? settings.panel : null) : undefined;
  const selectionOffer = showSelectionOffer && (
    <button
      type="button"
      className={`docs-chat-ask-selection ${styles.selectionOffer}`}
      style={offerStyle}
      // Keep the page selection alive: a mousedown on a button would otherwise clear it in some browsers.
      onMouseDown={(event) => event.preventDefault()}
      onClick={() => {
        openPanel(selection.text);
        clearSelection();
      }}
      {...(shortcutLabel ? { title: shortcutLabel } : {})}
    >
      {translate({
        id: 'docsChat.selection.ask',
        message: 'Ask about selection',
        description: 'Button offered when text is selected in the page',
      })}
    </button>
  );

  return (
    <div ref={widgetRef} className="docs-chat-widget">
      {offerStyle && selectionOffer}
      {/* The launcher's corner; an offer whose selection ends off screen waits here, beside the launcher (or the open panel). */}
      <div className={`docs-chat-corner ${styles.corner}`} data-side={settings.panel.side} data-panel-open={open}>
        {!offerStyle && selectionOffer}
        <button
          ref={launcherRef}
          type="button"
          className={`docs-chat-launcher ${styles.launcher}`}
          aria-label={launcherName}
          aria-haspopup="dialog"
          aria-expanded={open}
          {...(open ? { 'aria-controls': 'docs-chat-panel' } : {})}
          {...(shortcut ? { 'aria-keyshortcuts': ariaKeyShortcuts(shortcut) } : {})}
          hidden={open || launcherHidden}
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
                  {translate({
                    id: 'docsChat.panel.failedStartNew',
                    message: 'Start new',
                    description: 'Button that reopens a fresh chat panel after a failure',
                  })}
                </button>{' '}
                <button type="button" onClick={() => closePanel()}>
                  {translate({ id: 'docsChat.panel.failedClose', message: 'Close', description: 'Button that hides the failure message' })}
                </button>
              </div>
            )
          }
        >
          <Suspense
            fallback={
              <p className={styles.loading} role="status" data-side={settings.panel.side}>
                {translate({
                  id: 'docsChat.panel.loading',
                  message: 'Opening the assistant…',
                  description: 'Shown while the chat panel loads',
                })}
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
              question={question}
              sharedId={sharedId}
              onLeaveShared={leaveShared}
              {...(fetchImpl ? { fetch: fetchImpl } : {})}
            />
          </Suspense>
        </PanelErrorBoundary>
      )}
    </div>
  );
}
