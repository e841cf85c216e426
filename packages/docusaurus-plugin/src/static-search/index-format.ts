/**
 * The static search index the plugin writes at `docusaurus build` under
 * `<build>/docs-chat/`, and the small manifest that names it.
 *
 * The index holds text only: the browser builds its inverted index when the
 * file arrives. Plain text compresses far better than serialised postings
 * (a lunr index of the same docs is several times larger), and analysing it
 * on load takes well under the 300 ms budget (see eval/src/bench-search.ts).
 */

export const SEARCH_INDEX_FORMAT = 'docs-chat-search-index';
export const SEARCH_MANIFEST_FORMAT = 'docs-chat-search-manifest';
export const SEARCH_INDEX_VERSION = 1;
/** Folder of the build that holds the manifest and the index. */
export const SEARCH_FILES_FOLDER = 'docs-chat';
/** Not content-hashed, so a page can find it; tiny, and it names the content-hashed index. */
export const SEARCH_MANIFEST_FILE = 'search-manifest.json';

/** A page of the docs: its URL as the built site serves it (base URL included) and its title. */
export type IndexedPage = [url: string, title: string];

/**
 * A section of a page: the text under one heading (H2/H3, or H4–H6 where a long
 * section was split), or a part of it when it is still too long.
 * `anchor` is "" for the page's introduction (the text before its first heading).
 * `headings` is the heading path below the page title; `depth` is 1 for the
 * introduction, else the heading level.
 */
export type IndexedSection = [page: number, anchor: string, headings: string[], depth: number, text: string];

export interface SearchIndexFile {
  format: typeof SEARCH_INDEX_FORMAT;
  version: typeof SEARCH_INDEX_VERSION;
  pages: IndexedPage[];
  sections: IndexedSection[];
}

export interface SearchManifestFile {
  format: typeof SEARCH_MANIFEST_FORMAT;
  version: typeof SEARCH_INDEX_VERSION;
  /** File name of the index beside the manifest, e.g. `search-index.3f9c2a1b.json`. */
  index: string;
  pages: number;
  sections: number;
}

/** The index or its manifest is missing, unreadable or from another version of the plugin. */
export class SearchIndexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchIndexError';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkHeader(value: unknown, format: string, what: string): Record<string, unknown> {
  if (!isObject(value) || value.format !== format) throw new SearchIndexError(`The ${what} is not a docs-chat ${what}.`);
  if (value.version !== SEARCH_INDEX_VERSION) {
    throw new SearchIndexError(`The ${what} has version ${String(value.version)}; this page reads version ${SEARCH_INDEX_VERSION}.`);
  }
  return value;
}

export function parseSearchManifest(value: unknown): SearchManifestFile {
  const manifest = checkHeader(value, SEARCH_MANIFEST_FORMAT, 'search manifest');
  // A plain file name: never a path or URL that would send the browser elsewhere.
  if (typeof manifest.index !== 'string' || !/^[\w.-]+\.json$/.test(manifest.index)) {
    throw new SearchIndexError('The search manifest does not name an index file.');
  }
  return manifest as unknown as SearchManifestFile;
}

/** Checks the shape of a downloaded index entry by entry, so a damaged file fails here and not inside a search. */
export function parseSearchIndex(value: unknown): SearchIndexFile {
  const index = checkHeader(value, SEARCH_INDEX_FORMAT, 'search index');
  const { pages, sections } = index;
  if (!Array.isArray(pages) || !Array.isArray(sections)) throw new SearchIndexError('The search index has no pages or sections.');
  for (const page of pages) {
    if (!Array.isArray(page) || typeof page[0] !== 'string' || typeof page[1] !== 'string')
      throw new SearchIndexError('A page of the search index is damaged.');
  }
  for (const section of sections) {
    if (
      !Array.isArray(section) ||
      section.length !== 5 ||
      !Number.isInteger(section[0]) ||
      section[0] < 0 ||
      section[0] >= pages.length ||
      typeof section[1] !== 'string' ||
      !Array.isArray(section[2]) ||
      !section[2].every((heading: unknown) => typeof heading === 'string') ||
      typeof section[3] !== 'number' ||
      typeof section[4] !== 'string'
    ) {
      throw new SearchIndexError('A section of the search index is damaged.');
    }
  }
  return index as unknown as SearchIndexFile;
}
