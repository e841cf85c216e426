import type { ReactNode } from 'react';
import Link from '@docusaurus/Link';
import { translate } from '@docusaurus/Translate';
// Only package imports: this component is safe to eject into a site.
import { toSiteHref, type SourceRef } from '@docs-chat/docusaurus-plugin/chat-client';
import styles from './styles.module.css';

export interface Props {
  readonly sources: readonly SourceRef[];
  /** The citation number of each source (what `[n]` in the answer says); 1, 2, 3... when absent. */
  readonly numbers?: readonly number[];
  /** Accessible name of the list's landmark; each answer's must be unique ("Sources of answer 2"). Defaults to the heading. */
  readonly label?: string;
  /** Called with the source's target when the reader follows a source link. */
  readonly onNavigate?: (href: string) => void;
}

/** The numbered sources of one answer; number n matches the answer's citation [n]. */
export default function SourceList({ sources, numbers, label: landmarkLabel, onNavigate }: Props): ReactNode {
  if (sources.length === 0) return null;
  const heading = translate({ id: 'docsChat.sources.heading', message: 'Sources', description: 'Heading above the sources of an answer' });
  return (
    <nav className={`docs-chat-sources ${styles.sources}`} aria-label={landmarkLabel ?? heading}>
      <p className={styles.heading} aria-hidden="true">
        {heading}
      </p>
      <ol className={styles.list}>
        {sources.map((source, index) => {
          const target = toSiteHref(source.url);
          // The heading path starts with the page title, already shown as the link text.
          const fullPath = source.heading_path.length > 0 ? source.heading_path : source.heading ? [source.heading] : [];
          const path = fullPath[0] === source.title ? fullPath.slice(1) : fullPath;
          const label = (
            <>
              {/* Shown on two lines; read as "Title, Section" rather than run together ("ConfigurationVector store settings"). */}
              <span className={styles.title}>
                {source.title}
                {path.length > 0 && <span className={styles.spokenOnly}>,</span>}
              </span>
              {path.length > 0 && <span className={styles.section}>{path.join(' › ')}</span>}
              {source.fallback_locale !== undefined && (
                <span className={styles.note}>
                  <span className={styles.spokenOnly}>, </span>
                  {translate(
                    {
                      id: 'docsChat.sources.untranslated',
                      message: 'Not translated yet: shown in its original language ({locale})',
                      description: "Note beside a cited page that has no translation in the reader's language",
                    },
                    { locale: source.fallback_locale },
                  )}
                </span>
              )}
            </>
          );
          return (
            <li key={`${source.url}-${index}`} className={styles.item}>
              <span className={styles.number} aria-hidden="true">
                {numbers?.[index] ?? index + 1}
              </span>
              {!source.url ? (
                // A JSON record without a URL: nothing to open, so its id is shown instead of a link.
                <span className={styles.link}>
                  {label}
                  {source.id !== undefined && <span className={styles.section}>{source.id}</span>}
                </span>
              ) : target.internal ? (
                <Link className={styles.link} to={target.href} onClick={() => onNavigate?.(target.href)}>
                  {label}
                </Link>
              ) : (
                <a className={styles.link} href={target.href} target="_blank" rel="noopener noreferrer">
                  {label}
                </a>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
