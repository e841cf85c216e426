import { memo, useEffect, useRef, useState, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import type { ChatMessage } from '../../chat-client/chat-state.js';
import { numberSources } from '../../chat-client/cited-sources.js';
import type { FeedbackRating } from '../../chat-client/conversation-api.js';
// Lives under theme/ so `docusaurus write-translations` finds its strings.
import MarkdownView from './markdown-view.js';
import SourceList from '@theme/SourceList';
import hidden from '../../theme-support/visually-hidden.module.css';
import styles from './styles.module.css';

export interface Props {
  readonly messages: readonly ChatMessage[];
  readonly welcomeMessage: string;
  readonly suggestedQuestions: readonly string[];
  /** Asks one of the suggested questions. */
  readonly onAsk: (question: string) => void;
  readonly onRate: (localId: string, rating: FeedbackRating) => void;
  /** Called with the link's target when the reader follows a link or source. */
  readonly onNavigate?: (href: string) => void;
  /** Given when the last answer was cut short and its question can be sent again: offers "Ask again". */
  readonly onAskAgain?: () => void;
}

function CopyButton({ text }: { text: string }): ReactNode {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return undefined;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
    } catch {
      // Clipboard refused (permissions, insecure context): nothing useful to show beyond not confirming.
    }
  };
  const copyLabel = translate({ id: 'docsChat.answer.copy', message: 'Copy answer', description: 'Button that copies an answer' });
  const copiedLabel = translate({ id: 'docsChat.answer.copied', message: 'Copied', description: 'Shown after the answer was copied' });
  return (
    <>
      <button type="button" className={styles.action} onClick={() => void copy()}>
        {/* Both labels share one grid cell, the idle one hidden, so the button keeps its width and the thumbs beside it stay put. */}
        <span className={styles.labelStack}>
          <span className={copied ? styles.hiddenLabel : undefined} aria-hidden={copied || undefined}>
            {copyLabel}
          </span>
          <span className={copied ? undefined : styles.hiddenLabel} aria-hidden={!copied || undefined}>
            {copiedLabel}
          </span>
        </span>
      </button>
      {/* A button's new name is not announced: say it. */}
      <span className={hidden.visuallyHidden} role="status" aria-live="polite">
        {copied
          ? translate({
              id: 'docsChat.answer.copiedAnnouncement',
              message: 'Answer copied to the clipboard',
              description: 'Announced to screen readers after the answer was copied',
            })
          : ''}
      </span>
    </>
  );
}

// Drawn rather than emoji: emoji fonts are missing on some systems and render as boxes.
function ThumbIcon({ direction }: { direction: 'up' | 'down' }): ReactNode {
  return (
    <svg
      viewBox="0 0 24 24"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
      style={direction === 'down' ? { transform: 'rotate(180deg)' } : undefined}
    >
      <path
        fill="currentColor"
        d="M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6V3a1.5 1.5 0 0 0-.4-1L13.2 1 7.6 6.6A2 2 0 0 0 7 8v11a2 2 0 0 0 2 2h9a2 2 0 0 0 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z"
      />
    </svg>
  );
}

function Feedback({ message, onRate }: { message: ChatMessage; onRate: Props['onRate'] }): ReactNode {
  if (!message.serverId) return null;
  const helpful = translate({ id: 'docsChat.answer.helpful', message: 'Helpful answer', description: 'Thumbs-up button' });
  const unhelpful = translate({ id: 'docsChat.answer.unhelpful', message: 'Unhelpful answer', description: 'Thumbs-down button' });
  return (
    <>
      <button
        type="button"
        className={styles.action}
        aria-label={helpful}
        title={helpful}
        aria-pressed={message.feedback === 'up'}
        onClick={() => onRate(message.localId, 'up')}
      >
        <ThumbIcon direction="up" />
      </button>
      <button
        type="button"
        className={styles.action}
        aria-label={unhelpful}
        title={unhelpful}
        aria-pressed={message.feedback === 'down'}
        onClick={() => onRate(message.localId, 'down')}
      >
        <ThumbIcon direction="down" />
      </button>
      {message.feedback !== null && (
        <span className={styles.thanks} role="status">
          {translate({ id: 'docsChat.answer.thanks', message: 'Thanks for the feedback', description: 'Shown after rating an answer' })}
        </span>
      )}
    </>
  );
}

function statusNote(message: ChatMessage): string | null {
  switch (message.status) {
    case 'stopped':
      return translate({ id: 'docsChat.answer.stopped', message: 'You stopped this answer.', description: 'Note under a stopped answer' });
    case 'interrupted':
      return translate({
        id: 'docsChat.answer.interrupted',
        message: 'This answer was interrupted before it finished.',
        description: 'Note under an interrupted answer',
      });
    case 'pending':
      return translate({
        id: 'docsChat.answer.pending',
        message:
          'This answer was not finished yet when the conversation was loaded. Open the conversation again in a moment to see all of it.',
        description: 'Note under a resumed answer the server was still writing',
      });
    case 'error':
      return translate({
        id: 'docsChat.answer.failed',
        message: 'This answer could not be completed.',
        description: 'Note under a failed answer',
      });
    default:
      return null;
  }
}

// Memoised: while an answer streams only the last message changes, so earlier answers
// are not parsed and rendered again for every token.
const AssistantMessage = memo(function AssistantMessage({
  message,
  number,
  onRate,
  onNavigate,
  onAskAgain,
}: {
  message: ChatMessage;
  /** Its place among the answers, from 1: names its sources landmark uniquely. */
  number: number;
  onRate: Props['onRate'];
  onNavigate?: Props['onNavigate'];
  onAskAgain?: Props['onAskAgain'];
}): ReactNode {
  const streaming = message.status === 'streaming';
  const finished = !streaming && message.status !== 'pending';
  const note = statusNote(message);
  const numbered = numberSources(message.content, message.sources, message.citedSourcesOnly ?? false);
  return (
    <div className={styles.answer} aria-busy={streaming}>
      <span className={hidden.visuallyHidden}>
        {translate({ id: 'docsChat.message.assistant', message: 'Assistant:', description: 'Screen-reader prefix of an answer' })}
      </span>
      {message.content === '' && streaming ? (
        <p className={styles.thinking}>
          {translate({
            id: 'docsChat.answer.thinking',
            message: 'Searching the docs…',
            description: 'Shown before the first token arrives',
          })}
        </p>
      ) : message.content === '' ? null : (
        <div className={`docs-chat-markdown ${styles.markdown}`}>
          <MarkdownView markdown={message.content} sources={numbered} {...(onNavigate ? { onNavigate } : {})} />
          {streaming && <span className={styles.cursor} aria-hidden="true" />}
        </div>
      )}
      {message.warnings.map((warning, index) => (
        <p key={index} className={styles.warning}>
          {warning}
        </p>
      ))}
      {note && <p className={styles.note}>{note}</p>}
      {onAskAgain && (
        <button type="button" className={styles.action} onClick={onAskAgain}>
          {translate({
            id: 'docsChat.answer.askAgain',
            message: 'Ask again',
            description: 'Button under an interrupted answer that sends its question again',
          })}
        </button>
      )}
      {!streaming && (
        <SourceList
          sources={message.sources}
          numbers={numbered.map((entry) => entry.number)}
          label={translate(
            {
              id: 'docsChat.sources.labelNumbered',
              message: 'Sources of answer {number}',
              description: 'Accessible name of the sources of one answer (unique per answer)',
            },
            { number: String(number) },
          )}
          {...(onNavigate ? { onNavigate } : {})}
        />
      )}
      {finished && message.content !== '' && (
        <div className={styles.actions}>
          <CopyButton text={message.content} />
          <Feedback message={message} onRate={onRate} />
        </div>
      )}
    </div>
  );
});

/** The conversation: the welcome and suggestions first, then every exchange, scrolled to the newest. */
export default function MessageList({
  messages,
  welcomeMessage,
  suggestedQuestions,
  onAsk,
  onRate,
  onNavigate,
  onAskAgain,
}: Props): ReactNode {
  const endRef = useRef<HTMLDivElement>(null);
  const scrollerRef = useRef<HTMLDivElement>(null);
  // Follow the answer as it grows, unless the reader scrolled up to read something earlier.
  const followRef = useRef(true);
  const last = messages[messages.length - 1];

  const handleScroll = (): void => {
    const scroller = scrollerRef.current;
    if (scroller) followRef.current = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  };

  // A new question always brings the conversation to its end.
  useEffect(() => {
    followRef.current = true;
  }, [messages.length]);

  useEffect(() => {
    if (followRef.current) endRef.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length, last?.content, last?.status]);

  return (
    <div
      ref={scrollerRef}
      className={`docs-chat-messages ${styles.scroller}`}
      tabIndex={0}
      aria-label={translate({ id: 'docsChat.messages.label', message: 'Conversation', description: 'Accessible name of the message list' })}
      role="region"
      onScroll={handleScroll}
    >
      <div className={styles.welcome}>
        <p>{welcomeMessage}</p>
        {messages.length === 0 && suggestedQuestions.length > 0 && (
          <ul
            className={styles.suggestions}
            aria-label={translate({
              id: 'docsChat.suggestions.label',
              message: 'Suggested questions',
              description: 'Accessible name of the suggested questions',
            })}
          >
            {suggestedQuestions.map((question) => (
              <li key={question}>
                <button type="button" className={styles.suggestion} onClick={() => onAsk(question)}>
                  {question}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <ol className={styles.messages}>
        {messages.map((message, index) => (
          <li key={message.localId} className={message.role === 'user' ? styles.userItem : styles.assistantItem}>
            {message.role === 'user' ? (
              <div className={styles.question}>
                <span className={hidden.visuallyHidden}>
                  {translate({ id: 'docsChat.message.user', message: 'You:', description: 'Screen-reader prefix of a question' })}
                </span>
                {message.mode === 'selection' && (
                  <span className={styles.modeTag}>
                    {translate({
                      id: 'docsChat.message.aboutSelection',
                      message: 'About the selection',
                      description: 'Tag on a question asked in selection mode',
                    })}
                  </span>
                )}
                <p>{message.content}</p>
              </div>
            ) : (
              <AssistantMessage
                message={message}
                number={messages.slice(0, index + 1).filter((candidate) => candidate.role === 'assistant').length}
                onRate={onRate}
                onNavigate={onNavigate}
                {...(onAskAgain && index === messages.length - 1 ? { onAskAgain } : {})}
              />
            )}
          </li>
        ))}
      </ol>
      <div ref={endRef} />
    </div>
  );
}
