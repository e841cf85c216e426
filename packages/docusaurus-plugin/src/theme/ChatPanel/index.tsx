import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import type { DocsChatSettings } from '../../client-settings/docs-chat-settings.js';
import type { ChatErrorState } from '../../chat-client/chat-state.js';
import { markdownToPlainText } from '../../chat-client/markdown/parse-markdown.js';
import { prepareSelection } from '../../chat-client/token-estimate.js';
import { useChat } from '../../chat-client/use-chat.js';
import { useConversationPersistence } from '../../chat-client/use-conversation-persistence.js';
import type { FetchFunction } from '../../chat-client/stream-client.js';
import InputBox from '@theme/InputBox';
import MessageList from '@theme/MessageList';
import SelectionMode from '@theme/SelectionMode';
import hidden from '../../theme-support/visually-hidden.module.css';
import styles from './styles.module.css';

export interface Props {
  readonly open: boolean;
  readonly onClose: () => void;
  readonly settings: DocsChatSettings;
  /** The passage selected in the page, when selection mode is active. */
  readonly selection: string | null;
  readonly onExitSelection: () => void;
  /** For tests; the browser's fetch otherwise. */
  readonly fetch?: FetchFunction;
}

function errorText(error: ChatErrorState): string {
  switch (error.kind) {
    case 'network':
      return translate({
        id: 'docsChat.error.network',
        message: 'The docs assistant cannot be reached right now. Check your connection, then try again.',
        description: 'Error when the server is down or unreachable',
      });
    case 'rate_limited':
      return error.retryAfterSeconds !== null
        ? translate(
            { id: 'docsChat.error.rateLimitedWait', message: 'You have asked many questions in a short time. Please wait {seconds} seconds, then try again.', description: 'Error on HTTP 429 with a retry-after' },
            { seconds: String(error.retryAfterSeconds) },
          )
        : translate({ id: 'docsChat.error.rateLimited', message: 'You have asked many questions in a short time. Please wait a moment, then try again.', description: 'Error on HTTP 429' });
    case 'busy':
      return translate({ id: 'docsChat.error.busy', message: 'The docs assistant is busy right now. Please try again in a moment.', description: 'Error when the server or model is overloaded' });
    case 'not_found':
      return translate({ id: 'docsChat.error.notFound', message: 'That conversation is no longer available. Start a new one.', description: 'Error when a saved conversation cannot be found' });
    case 'protocol':
      return translate({ id: 'docsChat.error.protocol', message: 'The docs assistant was updated. Reload the page to keep chatting.', description: 'Error when the server speaks another protocol version' });
    case 'invalid_request':
      // The server's own message says what to change (e.g. the question is too long).
      return error.message;
    case 'server':
      return translate({ id: 'docsChat.error.server', message: 'Something went wrong while answering. Please try again.', description: 'Generic server error' });
  }
}

function currentPage(): { url: string; title: string } | undefined {
  if (typeof window === 'undefined') return undefined;
  return { url: window.location.href.slice(0, 2048), title: document.title.slice(0, 500) };
}

/** The side panel, loaded on first use: it owns the conversation. */
export default function ChatPanel({ open, onClose, settings, selection, onExitSelection, fetch: fetchImpl }: Props): ReactNode {
  const titleId = useId();
  const panelRef = useRef<HTMLDivElement>(null);
  const chat = useChat({ serverUrl: settings.serverUrl, getPage: currentPage, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const { state } = chat;
  const persistence = useConversationPersistence();
  // Offer to resume only once per page load, and only before anything was asked.
  const [resumeDecided, setResumeDecided] = useState(false);
  const preparedSelection = useMemo(() => (selection === null ? null : prepareSelection(selection)), [selection]);

  const { save, clear } = persistence;
  useEffect(() => {
    if (state.conversationId !== null && state.persisted) save(state.conversationId);
  }, [state.conversationId, state.persisted, save]);

  useEffect(() => {
    if (state.error?.kind === 'not_found' && state.messages.length === 0) clear();
  }, [state.error, state.messages.length, clear]);

  // Closing the panel stops the answer: nobody is reading it.
  const { stop } = chat;
  useEffect(() => {
    if (!open) stop();
  }, [open, stop]);

  // On wide screens the page makes room for the panel instead of sliding under it (see styles.module.css).
  useEffect(() => {
    if (!open) return undefined;
    const root = document.documentElement;
    root.style.setProperty('--docs-chat-panel-width', `${settings.panel.width}px`);
    root.dataset.docsChatPanel = settings.panel.side;
    return () => {
      delete root.dataset.docsChatPanel;
    };
  }, [open, settings.panel.side, settings.panel.width]);

  const offerResume =
    !resumeDecided && persistence.ready && persistence.savedConversationId !== null && state.messages.length === 0 && state.status === 'idle' && state.error === null;

  const ask = useCallback(
    (message: string) => {
      setResumeDecided(true);
      if (preparedSelection) chat.send({ message, mode: 'selection', context: preparedSelection.text });
      else chat.send({ message, mode: 'general' });
    },
    [chat, preparedSelection],
  );

  const startNew = (): void => {
    setResumeDecided(true);
    chat.startNew();
    clear();
  };

  const resume = (): void => {
    setResumeDecided(true);
    if (persistence.savedConversationId) void chat.resume(persistence.savedConversationId);
  };

  const { rate } = chat;
  const handleRate = useCallback((localId: string, rating: 'up' | 'down') => void rate(localId, rating), [rate]);

  const navigate = useCallback(() => {
    // On a phone the panel covers the page: get out of the way of the section the reader asked for.
    if (typeof window !== 'undefined' && window.matchMedia?.('(max-width: 600px)').matches) onClose();
  }, [onClose]);

  const handleKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    if (event.key === 'Escape' && !event.defaultPrevented) {
      event.preventDefault();
      onClose();
    }
  };

  const title = settings.title ?? translate({ id: 'docsChat.title', message: 'Ask the docs', description: 'Title of the chat panel' });
  const welcome =
    settings.welcomeMessage ??
    translate({
      id: 'docsChat.welcome',
      message: 'Hi! Ask me anything about these docs. Answers cite the pages they come from, so you can check them.',
      description: 'First message of an empty conversation',
    });
  const placeholder =
    (preparedSelection
      ? translate({ id: 'docsChat.input.placeholderSelection', message: 'Ask about the selected text…', description: 'Placeholder in selection mode' })
      : null) ??
    settings.placeholder ??
    translate({ id: 'docsChat.input.placeholder', message: 'Ask a question about the docs…', description: 'Placeholder of the question box' });

  const last = state.messages[state.messages.length - 1];
  const announcement = state.announcement === '' ? '' : markdownToPlainText(state.announcement);

  return (
    <div
      ref={panelRef}
      id="docs-chat-panel"
      className={`docs-chat-panel ${styles.panel}`}
      data-side={settings.panel.side}
      style={{ ['--docs-chat-panel-width' as string]: `${settings.panel.width}px` }}
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      hidden={!open}
      onKeyDown={handleKeyDown}
    >
      <header className={styles.header}>
        <h2 id={titleId} className={styles.title}>
          {title}
        </h2>
        <div className={styles.headerActions}>
          {state.messages.length > 0 && (
            <button type="button" className={styles.iconButton} onClick={startNew} disabled={state.status === 'streaming'}>
              {translate({ id: 'docsChat.panel.newConversation', message: 'New chat', description: 'Button that starts a new conversation' })}
            </button>
          )}
          <button
            type="button"
            className={styles.iconButton}
            onClick={onClose}
            aria-label={translate({ id: 'docsChat.panel.close', message: 'Close chat', description: 'Accessible name of the close button' })}
          >
            <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
              <path fill="currentColor" d="M18.3 5.7 12 12l6.3 6.3-1.4 1.4L10.6 13.4 4.3 19.7 2.9 18.3 9.2 12 2.9 5.7l1.4-1.4 6.3 6.3 6.3-6.3z" />
            </svg>
          </button>
        </div>
      </header>

      {!state.persisted && (
        <p className={styles.notice} role="status">
          {translate({
            id: 'docsChat.panel.notSaved',
            message: 'This conversation is not being saved right now, so it cannot be resumed later. Answers still work.',
            description: 'Shown when the server could not store the conversation',
          })}
        </p>
      )}

      {preparedSelection && (
        <SelectionMode
          text={preparedSelection.text}
          truncated={preparedSelection.truncated}
          estimatedTokens={preparedSelection.estimatedTokens}
          onExit={onExitSelection}
        />
      )}

      {offerResume ? (
        <div className={styles.resume}>
          <p>
            {translate({ id: 'docsChat.resume.prompt', message: 'You have an earlier conversation.', description: 'Shown when a saved conversation exists' })}
          </p>
          <div className={styles.resumeActions}>
            <button type="button" className={styles.primaryButton} onClick={resume}>
              {translate({ id: 'docsChat.resume.resume', message: 'Resume last conversation', description: 'Button that reloads the saved conversation' })}
            </button>
            <button type="button" className={styles.secondaryButton} onClick={startNew}>
              {translate({ id: 'docsChat.resume.new', message: 'Start new', description: 'Button that starts a fresh conversation' })}
            </button>
          </div>
        </div>
      ) : state.status === 'resuming' ? (
        <p className={styles.loading} role="status">
          {translate({ id: 'docsChat.resume.loading', message: 'Loading your conversation…', description: 'Shown while a saved conversation loads' })}
        </p>
      ) : (
        <MessageList
          messages={state.messages}
          welcomeMessage={welcome}
          suggestedQuestions={preparedSelection ? [] : settings.suggestedQuestions}
          onAsk={ask}
          onRate={handleRate}
          onNavigate={navigate}
        />
      )}

      {state.error && (
        <div className={styles.error} role="alert">
          <p>{errorText(state.error)}</p>
          <div className={styles.errorActions}>
            {state.error.retryable && state.lastQuestion && (
              <button type="button" className={styles.primaryButton} onClick={chat.retry}>
                {translate({ id: 'docsChat.error.retry', message: 'Retry', description: 'Button that sends the last question again' })}
              </button>
            )}
            {state.error.kind === 'protocol' && (
              <button type="button" className={styles.primaryButton} onClick={() => window.location.reload()}>
                {translate({ id: 'docsChat.error.reload', message: 'Reload page', description: 'Button that reloads the page' })}
              </button>
            )}
            <button type="button" className={styles.secondaryButton} onClick={chat.dismissError}>
              {translate({ id: 'docsChat.error.dismiss', message: 'Dismiss', description: 'Button that hides the error' })}
            </button>
          </div>
        </div>
      )}

      <InputBox
        onSubmit={ask}
        onStop={chat.stop}
        streaming={state.status === 'streaming'}
        disabled={state.status === 'resuming'}
        placeholder={placeholder}
        focusKey={open && !offerResume ? `${String(open)}-${selection ?? ''}` : false}
      />

      {/* Whole answers only: announcing every token would drown a screen reader. */}
      <div className={hidden.visuallyHidden} aria-live="polite" aria-atomic="true">
        {last?.role === 'assistant' && last.status !== 'streaming' ? announcement : ''}
      </div>
    </div>
  );
}
