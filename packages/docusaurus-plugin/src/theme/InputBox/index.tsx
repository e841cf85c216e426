import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
// Only package imports: this component is safe to eject into a site.
import { MAX_MESSAGE_CHARS } from '@docs-chat/docusaurus-plugin/chat-client';
import styles from './styles.module.css';

export interface Props {
  /** Sends the question; the box clears itself afterwards. */
  readonly onSubmit: (question: string) => void;
  /** Stops the answer being generated. */
  readonly onStop: () => void;
  /** True while an answer streams: Send becomes Stop generating. */
  readonly streaming: boolean;
  /** Nothing can be sent right now (a conversation is loading); the box stays focusable. */
  readonly disabled?: boolean;
  readonly placeholder: string;
  /** Moves focus into the box whenever this value changes (e.g. the panel opened). */
  readonly focusKey?: unknown;
}

// Warn before the server's limit is reached, not after.
const COUNTER_THRESHOLD = MAX_MESSAGE_CHARS - 500;

/** The question box: Enter sends, Shift+Enter adds a line. */
export default function InputBox({ onSubmit, onStop, streaming, disabled = false, placeholder, focusKey }: Props): ReactNode {
  const [value, setValue] = useState('');
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const inputId = useId();
  const hintId = useId();

  useEffect(() => {
    if (focusKey !== undefined && focusKey !== false) textareaRef.current?.focus();
  }, [focusKey]);

  // Grow with the text up to a few lines, then scroll.
  useEffect(() => {
    const textarea = textareaRef.current;
    if (!textarea) return;
    textarea.style.height = 'auto';
    if (textarea.scrollHeight > 0) textarea.style.height = `${Math.min(textarea.scrollHeight, 160)}px`;
  }, [value]);

  const trimmed = value.trim();
  const canSend = !streaming && !disabled && trimmed.length > 0 && value.length <= MAX_MESSAGE_CHARS;

  const submit = (): void => {
    if (!canSend) return;
    onSubmit(trimmed);
    setValue('');
    // The Send button turns into Stop: keep focus in the box rather than losing it.
    textareaRef.current?.focus();
  };

  const handleSubmit = (event: FormEvent): void => {
    event.preventDefault();
    submit();
  };

  const handleKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    // Enter while an IME is composing confirms the composition; it must not send.
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };

  const label = translate({ id: 'docsChat.input.label', message: 'Your question', description: 'Accessible label of the question box' });
  const hint = translate({
    id: 'docsChat.input.hint',
    message: 'Press Enter to send, Shift+Enter for a new line.',
    description: 'Keyboard hint for the question box',
  });

  return (
    <form className={`docs-chat-input ${styles.form}`} onSubmit={handleSubmit}>
      <label htmlFor={inputId} className={styles.visuallyHidden}>
        {label}
      </label>
      <textarea
        ref={textareaRef}
        id={inputId}
        className={styles.textarea}
        value={value}
        rows={1}
        maxLength={MAX_MESSAGE_CHARS}
        placeholder={placeholder}
        // Read-only rather than disabled: a disabled box drops focus to the page's body (WCAG 2.4.3).
        readOnly={disabled}
        aria-disabled={disabled || undefined}
        aria-describedby={hintId}
        onChange={(event) => setValue(event.target.value)}
        onKeyDown={handleKeyDown}
      />
      <span id={hintId} className={styles.visuallyHidden}>
        {hint}
      </span>
      {value.length > COUNTER_THRESHOLD && (
        <span className={styles.counter} aria-live="polite">
          {translate(
            { id: 'docsChat.input.counter', message: '{count} of {max} characters', description: 'Shown near the character limit' },
            { count: String(value.length), max: String(MAX_MESSAGE_CHARS) },
          )}
        </span>
      )}
      {streaming ? (
        <button
          type="button"
          className={`${styles.button} ${styles.stop}`}
          onClick={() => {
            onStop();
            textareaRef.current?.focus();
          }}
        >
          {translate({ id: 'docsChat.input.stop', message: 'Stop generating', description: 'Button that stops the answer being streamed' })}
        </button>
      ) : (
        <button
          type="submit"
          className={styles.button}
          disabled={!canSend}
          aria-label={translate({ id: 'docsChat.input.send', message: 'Send question', description: 'Accessible name of the send button' })}
        >
          <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
            <path fill="currentColor" d="M3.4 20.4 21 12 3.4 3.6 3.3 10.1 15.8 12 3.3 13.9z" />
          </svg>
        </button>
      )}
    </form>
  );
}
