/** What a search shows, whichever engine answered: the server's hybrid search or the static index in the browser. */
import type { HighlightedText } from '../static-search/snippet.js';

export type { HighlightedText } from '../static-search/snippet.js';

/** One section found. */
export interface SearchHitView {
  /** Where the result leads: a site path with the section's anchor, or an absolute URL. */
  url: string;
  /** The page, without the anchor: results are grouped by it. */
  pageUrl: string;
  title: HighlightedText;
  /** Heading path below the page title, matched words marked. */
  headings: HighlightedText[];
  snippet: HighlightedText;
}

/** `server`: GET /search answered; `static`: the static index in the browser did. */
export type SearchSource = 'server' | 'static';

export interface SearchOutcome {
  query: string;
  source: SearchSource;
  hits: SearchHitView[];
}

/** Neither the server nor the static index can answer: the index is missing or damaged and the server is down. */
export class SearchUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchUnavailableError';
  }
}

/** Results in display groups: one per page, pages in the order of their best section. */
export interface SearchHitGroup {
  pageUrl: string;
  title: HighlightedText;
  hits: SearchHitView[];
}

export function groupByPage(hits: readonly SearchHitView[]): SearchHitGroup[] {
  const groups: SearchHitGroup[] = [];
  const byPage = new Map<string, SearchHitGroup>();
  for (const hit of hits) {
    let group = byPage.get(hit.pageUrl);
    if (!group) {
      group = { pageUrl: hit.pageUrl, title: hit.title, hits: [] };
      byPage.set(hit.pageUrl, group);
      groups.push(group);
    }
    group.hits.push(hit);
  }
  return groups;
}

/** One row of a search combobox's listbox: a section found, a recent search, or the row that asks the chat instead. */
export type SearchOption = { kind: 'hit'; hit: SearchHitView } | { kind: 'recent'; query: string } | { kind: 'ask'; question: string };
