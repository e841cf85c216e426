import type { ReactNode } from 'react';
import Link from '@docusaurus/Link';
import { translate } from '@docusaurus/Translate';
import { Highlighted, PathSeparator } from '@theme/SearchResults';
import { toSiteHref } from '../../chat-client/site-href.js';
import { useSearch } from '../../search-client/use-search.js';
import { useSearchClient } from '../../theme-support/use-search-client.js';
import styles from './styles.module.css';

export interface Props {
  /** The question the server could not answer. */
  readonly question: string;
  readonly onRetry: () => void;
  readonly onDismiss: () => void;
  /** A result was followed. */
  /** Called with the section's target when the reader follows it. */
  readonly onNavigate?: (href: string) => void;
  readonly fetch?: typeof fetch;
}

/**
 * In place of an error when the assistant cannot be reached: says so, and
 * lists the sections of the docs that match the question, found in the browser
 * (the static index) so the reader still gets somewhere.
 */
export default function OfflineAnswer({ question, onRetry, onDismiss, onNavigate, fetch: fetchImpl }: Props): ReactNode {
  const client = useSearchClient(fetchImpl);
  const state = useSearch(question, client, { debounceMs: 0 });
  const hits = state.status === 'done' ? state.outcome.hits.slice(0, 5) : [];

  let lead: string;
  if (state.status === 'unavailable') {
    lead = translate({
      id: 'docsChat.offline.noSearch',
      message: 'The assistant is offline right now, and search is unavailable. Try again in a moment.',
      description: 'Shown when the chat server cannot be reached and the static search index cannot be used either',
    });
  } else if (state.status === 'done' && hits.length === 0) {
    lead = translate({
      id: 'docsChat.offline.noResults',
      message:
        'The assistant is offline right now, and no section of the docs matches your question. Try other words, or try again in a moment.',
      description: 'Shown when the chat server cannot be reached and search finds nothing',
    });
  } else {
    lead = translate({
      id: 'docsChat.offline.results',
      message: 'The assistant is offline right now. These sections of the docs match your question:',
      description: 'Shown above search results when the chat server cannot be reached',
    });
  }

  return (
    <div className={`docs-chat-offline-answer ${styles.offline}`} role="status" data-search-status={state.status}>
      <p className={styles.lead}>{lead}</p>
      {hits.length > 0 && (
        <ul className={styles.results}>
          {hits.map((hit) => {
            const { href, internal } = toSiteHref(hit.url);
            const path = hit.headings.length > 0 ? hit.headings : [];
            return (
              <li key={hit.url}>
                <Link
                  to={href}
                  {...(internal ? {} : { target: '_blank', rel: 'noopener noreferrer' })}
                  onClick={() => onNavigate?.(href)}
                  className={styles.link}
                >
                  <Highlighted value={hit.title} />
                  {path.map((heading, index) => (
                    <span key={index}>
                      <PathSeparator />
                      <Highlighted value={heading} />
                    </span>
                  ))}
                </Link>
                {hit.snippet.text !== '' && (
                  <p className={styles.snippet}>
                    <Highlighted value={hit.snippet} />
                  </p>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <div className={styles.actions}>
        <button type="button" className={styles.primaryButton} onClick={onRetry}>
          {translate({
            id: 'docsChat.offline.retry',
            message: 'Ask the assistant again',
            description: 'Button that sends the question again once the assistant may be back',
          })}
        </button>
        <button type="button" className={styles.secondaryButton} onClick={onDismiss}>
          {translate({ id: 'docsChat.error.dismiss', message: 'Dismiss', description: 'Button that hides the error' })}
        </button>
      </div>
    </div>
  );
}
