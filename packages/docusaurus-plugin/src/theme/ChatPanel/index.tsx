import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import type { DocsChatSettings } from '../../client-settings/docs-chat-settings.js';
import type { ChatErrorState, ChatState } from '../../chat-client/chat-state.js';
import { markdownToPlainText } from '../../chat-client/markdown/parse-markdown.js';
import { prepareSelection } from '../../chat-client/token-estimate.js';
import { deleteConversation, exportUrl, shareConversation } from '../../chat-client/conversation-api.js';
import { shareLink } from '../../chat-client/share-link.js';
import { useChat } from '../../chat-client/use-chat.js';
import { useSharedConversation, type SharedConversationState } from '../../chat-client/use-shared-conversation.js';
import { useConversationPersistence } from '../../chat-client/use-conversation-persistence.js';
import type { FetchFunction } from '../../chat-client/stream-client.js';
import { focusTargetAfterNavigation } from '../../theme-support/focus-after-navigation.js';
import { useLiveAnnouncement } from '../../theme-support/use-live-announcement.js';
import { useModalPanel } from '../../theme-support/use-modal-panel.js';
import { usePanelLayout } from '../../theme-support/use-panel-layout.js';
import InputBox from '@theme/InputBox';
import MessageList from '@theme/MessageList';
import OfflineAnswer from '@theme/OfflineAnswer';
import PanelSearch from '@theme/PanelSearch';
import SelectionMode from '@theme/SelectionMode';
import hidden from '../../theme-support/visually-hidden.module.css';
import { ConversationMenu } from './conversation-menu.js';
import styles from './styles.module.css';
import { useReaderScope } from '../../theme-support/use-reader-scope.js';

export interface Props {
  readonly open: boolean;
  /** Hides the panel (the conversation and a streaming answer go on). */
  readonly onClose: (options?: CloseOptions) => void;
  readonly settings: DocsChatSettings;
  /** The passage selected in the page, when selection mode is active. */
  readonly selection: string | null;
  readonly onExitSelection: () => void;
  /** A question asked from elsewhere in the page (the search box's "Ask the docs about …"); asked once per `key`. */
  readonly question?: { text: string; key: number } | null;
  /** For tests; the browser's fetch otherwise. */
  readonly fetch?: FetchFunction;
  /** A conversation someone shared (the page's `?docs-chat-share=` parameter): shown read-only instead of the reader's own. */
  readonly sharedId?: string | null;
  /** Leaves the shared conversation for the reader's own. */
  readonly onLeaveShared?: () => void;
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
            {
              id: 'docsChat.error.rateLimitedWait',
              message: 'You have asked many questions in a short time. Please wait {seconds} seconds, then try again.',
              description: 'Error on HTTP 429 with a retry-after',
            },
            { seconds: String(error.retryAfterSeconds) },
          )
        : translate({
            id: 'docsChat.error.rateLimited',
            message: 'You have asked many questions in a short time. Please wait a moment, then try again.',
            description: 'Error on HTTP 429',
          });
    case 'busy':
      return error.retryAfterSeconds !== null
        ? translate(
            {
              id: 'docsChat.error.busyWait',
              message: 'The docs assistant is busy right now. Please try again in {seconds} seconds.',
              description: 'Error when the server is overloaded and said how long to wait (HTTP 503 with a retry-after)',
            },
            { seconds: String(error.retryAfterSeconds) },
          )
        : translate({
            id: 'docsChat.error.busy',
            message: 'The docs assistant is busy right now. Please try again in a moment.',
            description: 'Error when the server or model is overloaded',
          });
    case 'not_found':
      return translate({
        id: 'docsChat.error.notFound',
        message: 'That conversation is no longer available. Start a new one.',
        description: 'Error when a saved conversation cannot be found',
      });
    case 'protocol':
      return translate({
        id: 'docsChat.error.protocol',
        message: 'The docs assistant was updated. Reload the page to keep chatting.',
        description: 'Error when the server speaks another protocol version',
      });
    case 'invalid_request':
      // The server's own message says what to change (e.g. the question is too long).
      return error.message;
    case 'server':
      return translate({
        id: 'docsChat.error.server',
        message: 'Something went wrong while answering. Please try again.',
        description: 'Generic server error',
      });
  }
}

function currentPage(): { url: string; title: string } | undefined {
  if (typeof window === 'undefined') return undefined;
  return { url: window.location.href.slice(0, 2048), title: document.title.slice(0, 500) };
}

/** What the polite live region says: progress while an answer is written, then the whole answer once. */
function announcementFor(state: ChatState): string {
  const last = state.messages[state.messages.length - 1];
  if (last?.role === 'assistant' && last.status === 'streaming') {
    return last.content === ''
      ? translate({
          id: 'docsChat.announce.searching',
          message: 'Searching the docs…',
          description: 'Announced to screen readers when a question was sent',
        })
      : translate({
          id: 'docsChat.announce.writing',
          message: 'Writing the answer…',
          description: 'Announced to screen readers when the answer starts to arrive',
        });
  }
  if (last?.role === 'assistant' && last.status === 'stopped') {
    return translate({
      id: 'docsChat.announce.stopped',
      message: 'Answer stopped.',
      description: 'Announced to screen readers when the reader stopped an answer',
    });
  }
  return state.announcement === '' ? '' : markdownToPlainText(state.announcement);
}

export interface CloseOptions {
  /** False when focus goes elsewhere (the cited section), not back to the launcher. */
  returnFocus?: boolean;
}

/** The side panel, loaded on first use: it owns the conversation. */
export default function ChatPanel({
  open,
  onClose,
  settings,
  selection,
  onExitSelection,
  question,
  fetch: fetchImpl,
  sharedId = null,
  onLeaveShared,
}: Props): ReactNode {
  const titleId = useId();
  const panelRef = useRef<HTMLDivElement>(null);
  const getScope = useReaderScope();
  const chat = useChat({ serverUrl: settings.serverUrl, getPage: currentPage, getScope, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const { state } = chat;
  const persistence = useConversationPersistence();
  // Offer to resume only once per page load, and only before anything was asked.
  const [resumeDecided, setResumeDecided] = useState(false);
  // Bumped whenever the control that had focus goes away (New chat, Resume, Retry...): focus goes to the question box.
  const [focusRequest, setFocusRequest] = useState(0);
  const focusQuestionBox = useCallback(() => setFocusRequest((value) => value + 1), []);
  const preparedSelection = useMemo(() => (selection === null ? null : prepareSelection(selection)), [selection]);
  const layout = usePanelLayout(open, settings.panel.side, settings.panel.width);
  const modal = open && layout === 'full-screen';
  useModalPanel(panelRef, modal, { preload: layout === 'full-screen' });
  const announcement = useLiveAnnouncement(announcementFor(state));

  const { save, clear } = persistence;
  useEffect(() => {
    if (state.conversationId !== null && state.persisted) save(state.conversationId);
  }, [state.conversationId, state.persisted, save]);

  useEffect(() => {
    if (state.error?.kind === 'not_found' && state.messages.length === 0) clear();
  }, [state.error, state.messages.length, clear]);

  // Closing the panel only hides it: the answer keeps streaming and is there when the reader
  // reopens the panel. Only Stop (or leaving the page) stops it.

  const offerResume =
    !resumeDecided &&
    persistence.ready &&
    persistence.savedConversationId !== null &&
    state.messages.length === 0 &&
    state.status === 'idle' &&
    state.error === null;

  const ask = useCallback(
    (message: string) => {
      setResumeDecided(true);
      if (preparedSelection) chat.send({ message, mode: 'selection', context: preparedSelection.text });
      else chat.send({ message, mode: 'general' });
    },
    [chat, preparedSelection],
  );

  // Search mode shows the same results as the navbar search inside the panel.
  const [mode, setMode] = useState<'chat' | 'search'>('chat');
  const askedKey = useRef<number | null>(null);
  useEffect(() => {
    if (!question || askedKey.current === question.key) return;
    askedKey.current = question.key;
    setMode('chat');
    ask(question.text);
  }, [question, ask]);

  const startNew = (): void => {
    setResumeDecided(true);
    chat.startNew();
    clear();
    focusQuestionBox();
  };

  const resume = (): void => {
    setResumeDecided(true);
    if (persistence.savedConversationId) void chat.resume(persistence.savedConversationId);
    focusQuestionBox();
  };

  const retry = (): void => {
    chat.retry();
    focusQuestionBox();
  };

  const dismissError = (): void => {
    chat.dismissError();
    focusQuestionBox();
  };

  const { rate, askAgain: askAgainNow } = chat;
  const handleRate = useCallback((localId: string, rating: 'up' | 'down') => void rate(localId, rating), [rate]);
  const askAgain = useCallback(() => {
    askAgainNow();
    focusQuestionBox();
  }, [askAgainNow, focusQuestionBox]);
  const canAskAgain = state.status === 'idle' && state.error === null && chat.askAgainQuestion() !== null;

  const navigate = useCallback(
    (href: string) => {
      // Full screen, the panel covers the page: get out of the way of the section the reader
      // asked for, and put focus on it rather than on the launcher.
      if (layout !== 'full-screen') return;
      onClose({ returnFocus: false });
      focusTargetAfterNavigation(href);
    },
    [layout, onClose],
  );

  // What the reader did with the conversation (copied, deleted, failed), read out politely.
  const [actionNotice, setActionNotice] = useState('');
  // The link, shown to copy by hand, when the clipboard cannot be written.
  const [manualShareLink, setManualShareLink] = useState<string | null>(null);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const shared = useSharedConversation(settings.serverUrl, sharedId, fetchImpl);
  const conversationId = state.conversationId;

  const share = async (): Promise<void> => {
    if (conversationId === null) return;
    setManualShareLink(null);
    let link: string;
    try {
      link = shareLink(
        window.location.href,
        await shareConversation(settings.serverUrl, conversationId, fetchImpl ? { fetch: fetchImpl } : {}),
      );
    } catch {
      setActionNotice(
        translate({
          id: 'docsChat.share.failed',
          message: 'The share link could not be created. Try again in a moment.',
          description: 'Shown when creating a share link failed',
        }),
      );
      return;
    }
    try {
      await navigator.clipboard.writeText(link);
      setActionNotice(
        translate({
          id: 'docsChat.share.copied',
          message: 'Share link copied. Anyone with the link can read this conversation, but not continue or delete it.',
          description: 'Shown when the share link was copied',
        }),
      );
    } catch {
      setManualShareLink(link);
      setActionNotice(
        translate({
          id: 'docsChat.share.copyByHand',
          message: 'Copy the share link below.',
          description: 'Shown when the clipboard cannot be written',
        }),
      );
    }
  };

  const confirmDelete = async (): Promise<void> => {
    if (conversationId === null) return;
    try {
      await deleteConversation(settings.serverUrl, conversationId, fetchImpl ? { fetch: fetchImpl } : {});
    } catch {
      setConfirmingDelete(false);
      setActionNotice(
        translate({
          id: 'docsChat.delete.failed',
          message: 'The conversation could not be deleted. Try again in a moment.',
          description: 'Shown when deleting failed',
        }),
      );
      return;
    }
    setConfirmingDelete(false);
    setManualShareLink(null);
    setResumeDecided(true);
    chat.startNew();
    clear();
    setActionNotice(
      translate({ id: 'docsChat.delete.done', message: 'Conversation deleted.', description: 'Shown after the conversation was deleted' }),
    );
    focusQuestionBox();
  };

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
      ? translate({
          id: 'docsChat.input.placeholderSelection',
          message: 'Ask about the selected text…',
          description: 'Placeholder in selection mode',
        })
      : null) ??
    settings.placeholder ??
    translate({
      id: 'docsChat.input.placeholder',
      message: 'Ask a question about the docs…',
      description: 'Placeholder of the question box',
    });

  return (
    <div
      ref={panelRef}
      id="docs-chat-panel"
      className={`docs-chat-panel ${styles.panel}`}
      data-side={settings.panel.side}
      data-layout={layout}
      style={{ ['--docs-chat-panel-width' as string]: `${settings.panel.width}px` }}
      role="dialog"
      // Full screen on a phone the panel is modal (the page behind is inert); beside the page it is not.
      aria-modal={modal}
      aria-labelledby={titleId}
      hidden={!open}
      data-mode={mode}
      onKeyDown={handleKeyDown}
    >
      {/* A plain div, not <header>: inside a dialog a header would be a second banner landmark. */}
      <div className={styles.header}>
        <h2 id={titleId} className={styles.title}>
          {title}
        </h2>
        <div className={styles.headerActions}>
          <button
            type="button"
            className={styles.iconButton}
            aria-pressed={mode === 'search'}
            onClick={() => setMode(mode === 'search' ? 'chat' : 'search')}
          >
            {translate({
              id: 'docsChat.panel.searchMode',
              message: 'Search',
              description: 'Toggle button that shows search results in the panel instead of the chat',
            })}
          </button>
          {sharedId === null && conversationId !== null && state.persisted && (
            <ConversationMenu
              exportHref={exportUrl(settings.serverUrl, conversationId, typeof window === 'undefined' ? undefined : window.location.origin)}
              onShare={() => void share()}
              onDelete={() => setConfirmingDelete(true)}
              disabled={state.status !== 'idle'}
            />
          )}
          {sharedId === null && state.messages.length > 0 && (
            <button type="button" className={styles.iconButton} onClick={startNew} disabled={state.status === 'streaming'}>
              {translate({
                id: 'docsChat.panel.newConversation',
                message: 'New chat',
                description: 'Button that starts a new conversation',
              })}
            </button>
          )}
          <button
            type="button"
            className={styles.iconButton}
            onClick={() => onClose()}
            aria-label={translate({
              id: 'docsChat.panel.close',
              message: 'Close chat',
              description: 'Accessible name of the close button',
            })}
          >
            <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
              <path
                fill="currentColor"
                d="M18.3 5.7 12 12l6.3 6.3-1.4 1.4L10.6 13.4 4.3 19.7 2.9 18.3 9.2 12 2.9 5.7l1.4-1.4 6.3 6.3 6.3-6.3z"
              />
            </svg>
          </button>
        </div>
      </div>

      <PanelSearch
        active={open && mode === 'search'}
        onAsk={(text) => {
          setMode('chat');
          ask(text);
        }}
        onExit={() => setMode('chat')}
        onNavigate={navigate}
        {...(fetchImpl ? { fetch: fetchImpl } : {})}
      />

      {sharedId !== null ? (
        <SharedView state={shared} onLeave={onLeaveShared} onNavigate={navigate} />
      ) : (
        <>
          {confirmingDelete && <DeleteConfirmation onConfirm={() => void confirmDelete()} onCancel={() => setConfirmingDelete(false)} />}

          {manualShareLink !== null && (
            <label className={styles.shareLink}>
              {translate({
                id: 'docsChat.share.linkLabel',
                message: 'Share link',
                description: 'Label of the field holding the share link to copy by hand',
              })}
              <input type="text" readOnly value={manualShareLink} onFocus={(event) => event.currentTarget.select()} />
            </label>
          )}

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
                {translate({
                  id: 'docsChat.resume.prompt',
                  message: 'You have an earlier conversation.',
                  description: 'Shown when a saved conversation exists',
                })}
              </p>
              <div className={styles.resumeActions}>
                <button type="button" className={styles.primaryButton} onClick={resume}>
                  {translate({
                    id: 'docsChat.resume.resume',
                    message: 'Resume last conversation',
                    description: 'Button that reloads the saved conversation',
                  })}
                </button>
                <button type="button" className={styles.secondaryButton} onClick={startNew}>
                  {translate({ id: 'docsChat.resume.new', message: 'Start new', description: 'Button that starts a fresh conversation' })}
                </button>
              </div>
            </div>
          ) : state.status === 'resuming' ? (
            <p className={styles.loading} role="status">
              {translate({
                id: 'docsChat.resume.loading',
                message: 'Loading your conversation…',
                description: 'Shown while a saved conversation loads',
              })}
            </p>
          ) : (
            <MessageList
              messages={state.messages}
              welcomeMessage={welcome}
              suggestedQuestions={preparedSelection ? [] : settings.suggestedQuestions}
              onAsk={ask}
              onRate={handleRate}
              onNavigate={navigate}
              {...(canAskAgain ? { onAskAgain: askAgain } : {})}
            />
          )}

          {state.error?.kind === 'network' && state.lastQuestion && (
            <OfflineAnswer
              question={state.lastQuestion.message}
              onRetry={retry}
              onDismiss={dismissError}
              onNavigate={navigate}
              {...(fetchImpl ? { fetch: fetchImpl } : {})}
            />
          )}

          {state.error && !(state.error.kind === 'network' && state.lastQuestion) && (
            <div className={styles.error} role="alert">
              <p>{errorText(state.error)}</p>
              <div className={styles.errorActions}>
                {state.error.retryable && state.lastQuestion && (
                  <button type="button" className={styles.primaryButton} onClick={retry}>
                    {translate({ id: 'docsChat.error.retry', message: 'Retry', description: 'Button that sends the last question again' })}
                  </button>
                )}
                {state.error.kind === 'protocol' && (
                  <button type="button" className={styles.primaryButton} onClick={() => window.location.reload()}>
                    {translate({ id: 'docsChat.error.reload', message: 'Reload page', description: 'Button that reloads the page' })}
                  </button>
                )}
                <button type="button" className={styles.secondaryButton} onClick={dismissError}>
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
            focusKey={
              open && !offerResume && !confirmingDelete && mode === 'chat' ? `${String(open)}-${selection ?? ''}-${focusRequest}` : false
            }
          />
        </>
      )}

      <div className={hidden.visuallyHidden} role="status">
        {actionNotice}
      </div>

      {/* Progress, then the whole answer once (never every token), cleared once read out. */}
      <div className={hidden.visuallyHidden} aria-live="polite" aria-atomic="true">
        {announcement}
      </div>
    </div>
  );
}

/** The confirmation before a conversation is deleted; focus starts on Cancel, the safe choice, and Escape cancels. */
function DeleteConfirmation({ onConfirm, onCancel }: { onConfirm: () => void; onCancel: () => void }): ReactNode {
  const titleId = useId();
  const descriptionId = useId();
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => cancelRef.current?.focus(), []);
  return (
    <div
      className={styles.confirm}
      role="alertdialog"
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        // Escape leaves the question, not the panel.
        event.preventDefault();
        event.stopPropagation();
        onCancel();
      }}
    >
      <p id={titleId} className={styles.confirmTitle}>
        {translate({ id: 'docsChat.delete.title', message: 'Delete this conversation?', description: 'Title of the delete confirmation' })}
      </p>
      <p id={descriptionId}>
        {translate({
          id: 'docsChat.delete.description',
          message: 'It is removed from the server with its share links. This cannot be undone.',
          description: 'What deleting a conversation does',
        })}
      </p>
      <div className={styles.resumeActions}>
        <button type="button" className={styles.dangerButton} onClick={onConfirm}>
          {translate({ id: 'docsChat.delete.confirm', message: 'Delete', description: 'Button that confirms deleting the conversation' })}
        </button>
        <button ref={cancelRef} type="button" className={styles.secondaryButton} onClick={onCancel}>
          {translate({ id: 'docsChat.delete.cancel', message: 'Cancel', description: 'Button that keeps the conversation' })}
        </button>
      </div>
    </div>
  );
}

/** A conversation someone shared, read-only: no question box, no ratings, and the reader's own conversation untouched. */
function SharedView({
  state,
  onLeave,
  onNavigate,
}: {
  state: SharedConversationState;
  onLeave: (() => void) | undefined;
  onNavigate: (href: string) => void;
}): ReactNode {
  return (
    <>
      <div className={styles.notice}>
        <p>
          {translate({
            id: 'docsChat.shared.notice',
            message: 'You are reading a conversation someone shared with you. It is read-only; your own conversation is not affected.',
            description: 'Shown above a shared conversation',
          })}
        </p>
        {onLeave && (
          <button type="button" className={styles.secondaryButton} onClick={onLeave}>
            {translate({
              id: 'docsChat.shared.leave',
              message: 'Back to your own conversation',
              description: 'Button that leaves the shared conversation',
            })}
          </button>
        )}
      </div>
      {state.status === 'loading' && (
        <p className={styles.loading} role="status">
          {translate({
            id: 'docsChat.shared.loading',
            message: 'Loading the shared conversation…',
            description: 'Shown while a shared conversation loads',
          })}
        </p>
      )}
      {state.status === 'failed' && (
        <div className={styles.error} role="alert">
          <p>
            {state.error.kind === 'not_found'
              ? translate({
                  id: 'docsChat.shared.notFound',
                  message: 'This shared conversation does not exist or was deleted. Ask whoever shared it for a new link.',
                  description: 'Shown when a shared conversation is gone',
                })
              : translate({
                  id: 'docsChat.shared.failed',
                  message: 'The shared conversation cannot be loaded right now. Reload the page to try again.',
                  description: 'Shown when a shared conversation failed to load',
                })}
          </p>
        </div>
      )}
      {state.status === 'loaded' && (
        <MessageList
          messages={state.messages}
          welcomeMessage=""
          suggestedQuestions={[]}
          onAsk={() => undefined}
          onRate={() => undefined}
          onNavigate={onNavigate}
        />
      )}
    </>
  );
}
