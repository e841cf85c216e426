import { useId, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
// Only package imports: this component is safe to eject into a site.
import { MAX_SELECTION_TOKENS } from '@docs-chat/docusaurus-plugin/chat-client';
import styles from './styles.module.css';

export interface Props {
  /** The passage questions will be about (already cut to the token budget). */
  readonly text: string;
  /** True when the reader's selection was longer than the budget and got cut. */
  readonly truncated: boolean;
  readonly estimatedTokens: number;
  readonly onExit: () => void;
}

const PREVIEW_CHARS = 280;

/** The banner shown while questions are about a selected passage only. */
export default function SelectionMode({ text, truncated, estimatedTokens, onExit }: Props): ReactNode {
  const titleId = useId();
  const preview = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS).trimEnd()}…` : text;
  return (
    <section className={`docs-chat-selection ${styles.banner}`} aria-labelledby={titleId}>
      <div className={styles.header}>
        <h3 id={titleId} className={styles.title}>
          {translate({ id: 'docsChat.selection.active', message: 'Selection mode', description: 'Title of the selection mode banner' })}
        </h3>
        <button type="button" className={styles.exit} onClick={onExit}>
          {translate({
            id: 'docsChat.selection.exit',
            message: 'Exit selection mode',
            description: 'Button that returns to questions about all the docs',
          })}
        </button>
      </div>
      <p className={styles.explanation}>
        {translate({
          id: 'docsChat.selection.explanation',
          message: 'Answers use only the text you selected:',
          description: 'Explains what selection mode does',
        })}
      </p>
      <blockquote className={styles.preview}>{preview}</blockquote>
      {truncated && (
        <p className={styles.warning} role="status">
          {translate(
            {
              id: 'docsChat.selection.truncated',
              // Word for word the server's selection_truncated warning (selectionTruncatedMessage in the protocol).
              message:
                'The selection is about {tokens} tokens; only the first {max} are used. Select a shorter passage to ask about all of it.',
              description: 'Warning when the selection is over the token budget',
            },
            { tokens: String(estimatedTokens), max: String(MAX_SELECTION_TOKENS) },
          )}
        </p>
      )}
    </section>
  );
}
