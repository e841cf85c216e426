import { useEffect, useRef, type ReactNode } from 'react';
import { translate } from '@docusaurus/Translate';
import { highlightedPieces } from '../../static-search/snippet.js';
import type { HighlightedText, SearchHitView, SearchOption } from '../../search-client/search-results.js';
import hidden from '../../theme-support/visually-hidden.module.css';
import styles from './styles.module.css';

export type { SearchOption } from '../../search-client/search-results.js';

export interface Props {
  readonly id: string;
  /** Accessible name of the listbox. */
  readonly label: string;
  readonly options: readonly SearchOption[];
  readonly activeIndex: number;
  readonly onChoose: (index: number) => void;
  /** The pointer moved over an option: it becomes the active one. */
  readonly onActivate: (index: number) => void;
}

/** Text with its matched words in <mark> (rendered as React text: HTML in a result stays inert). */
export function Highlighted({ value }: { value: HighlightedText }): ReactNode {
  return highlightedPieces(value).map((piece, index) => (piece.marked ? <mark key={index}>{piece.text}</mark> : piece.text));
}

/** Between the parts of a heading path: an arrow on screen, a pause (comma) for screen readers. */
export function PathSeparator(): ReactNode {
  return (
    <>
      <span aria-hidden="true"> › </span>
      <span className={hidden.visuallyHidden}>, </span>
    </>
  );
}

export function optionId(listboxId: string, index: number): string {
  return `${listboxId}-option-${index}`;
}

function HitOption({ hit }: { hit: SearchHitView }): ReactNode {
  const path = hit.headings.length > 0 ? hit.headings : [hit.title];
  return (
    <>
      <span className={styles.path}>
        {path.map((heading, index) => (
          <span key={index}>
            {index > 0 && <PathSeparator />}
            <Highlighted value={heading} />
          </span>
        ))}
      </span>
      {hit.snippet.text !== '' && (
        <span className={styles.snippet}>
          <Highlighted value={hit.snippet} />
        </span>
      )}
    </>
  );
}

interface Group {
  key: string;
  label: ReactNode;
  indexes: number[];
}

/** Consecutive options of one page (or the recent searches) share a group with a visible label. */
function groupsOf(options: readonly SearchOption[]): Group[] {
  const groups: Group[] = [];
  options.forEach((option, index) => {
    const key = option.kind === 'hit' ? `page:${option.hit.pageUrl}` : option.kind === 'recent' ? 'recent' : `ask:${index}`;
    const last = groups.at(-1);
    if (last && last.key === key) {
      last.indexes.push(index);
      return;
    }
    const label =
      option.kind === 'hit' ? (
        <Highlighted value={option.hit.title} />
      ) : option.kind === 'recent' ? (
        translate({
          id: 'docsChat.search.recent',
          message: 'Recent searches',
          description: "Heading of the list of the reader's last searches",
        })
      ) : null;
    groups.push({ key, label, indexes: [index] });
  });
  return groups;
}

/**
 * The results listbox of a search combobox, grouped by page, with the heading
 * path and the matched words of each section, the reader's recent searches
 * when nothing is typed, and a last row to ask the chat instead. Focus stays in
 * the input: the active row is announced through aria-activedescendant.
 */
export default function SearchResults({ id, label, options, activeIndex, onChoose, onActivate }: Props): ReactNode {
  const listboxRef = useRef<HTMLDivElement>(null);
  // The active row moves with the arrows while focus stays in the input: keep it in view.
  useEffect(() => {
    if (activeIndex < 0) return;
    const active = listboxRef.current?.ownerDocument.getElementById(optionId(id, activeIndex));
    active?.scrollIntoView?.({ block: 'nearest' });
  }, [id, activeIndex]);

  const renderOption = (index: number): ReactNode => {
    const option = options[index] as SearchOption;
    const active = index === activeIndex;
    return (
      <div
        key={index}
        id={optionId(id, index)}
        role="option"
        aria-selected={active}
        className={`docs-chat-search-option ${styles.option} ${option.kind === 'ask' ? styles.askOption : ''}`}
        data-kind={option.kind}
        // Choosing must not move focus out of the input first (a click would blur it).
        onMouseDown={(event) => event.preventDefault()}
        onMouseMove={() => {
          if (!active) onActivate(index);
        }}
        onClick={() => onChoose(index)}
      >
        {option.kind === 'hit' && <HitOption hit={option.hit} />}
        {option.kind === 'recent' && (
          <span className={styles.path}>
            <svg viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" focusable="false">
              <path
                fill="currentColor"
                d="M13 3a9 9 0 0 0-9 9H1l4 4 4-4H6a7 7 0 1 1 2.05 4.95l-1.42 1.42A9 9 0 1 0 13 3zm-1 5v5l4.25 2.52.77-1.28-3.52-2.09V8H12z"
              />
            </svg>{' '}
            {option.query}
          </span>
        )}
        {option.kind === 'ask' && (
          <span className={styles.path}>
            <svg viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" focusable="false">
              <path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z" />
            </svg>{' '}
            {translate(
              {
                id: 'docsChat.search.ask',
                message: 'Ask the docs about “{question}”',
                description: 'Last row of the search results: asks the chat assistant instead',
              },
              { question: option.question },
            )}
          </span>
        )}
      </div>
    );
  };

  return (
    <div ref={listboxRef} id={id} role="listbox" aria-label={label} className={`docs-chat-search-results ${styles.listbox}`}>
      {groupsOf(options).map((group) =>
        group.label === null ? (
          group.indexes.map(renderOption)
        ) : (
          <div key={group.key} role="group" aria-labelledby={`${id}-${group.indexes[0]}-label`} className={styles.group}>
            <div id={`${id}-${group.indexes[0]}-label`} className={styles.groupLabel} role="presentation">
              {group.label}
            </div>
            {group.indexes.map(renderOption)}
          </div>
        ),
      )}
    </div>
  );
}
