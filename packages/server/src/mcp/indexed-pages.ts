/**
 * Pages of the index as markdown, for the MCP `read_page` tool. A page is
 * rebuilt from its own chunks (headings with their anchors, then the section
 * text), never read from the filesystem: whatever the agent asks for, only
 * pages the index holds can come back, and the same works for git and JSON
 * record sources, which have no docs folder on this machine.
 */
import type { Chunk, VectorStore } from '../core-api.js';

/** What the page reader needs of the store. */
export type PageSource = Pick<VectorStore, 'listFiles' | 'getByIds' | 'getByFile'>;

/** One page of the index. */
export interface IndexedPage {
  file: string;
  title: string;
  /** URL path of the page as the index holds it (no anchor). */
  url: string;
  version?: string;
  locale?: string;
}

/** The reason a page reference was refused before any look-up. */
export class PageReferenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PageReferenceError';
  }
}

export interface PageReference {
  /** The file key or URL path to look up. */
  key: string;
  /** The `#anchor` the reference carried, if any. */
  anchor: string | null;
}

/**
 * Reads what an agent passed as a page: a URL of the docs site (absolute only on `siteUrl`'s origin), a URL path
 * (`/docs/intro`) or a file path as search results name it (`guides/setup.md`). Parent folders (`..`), absolute
 * file paths, other schemes and other hosts are refused.
 */
export function parsePageReference(input: string, siteUrl: string | undefined): PageReference {
  const text = input.trim();
  if (text.length === 0) throw new PageReferenceError('Give the page as its URL (e.g. /docs/intro) or its file path from search_docs.');
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[a-z]:[\\/]/i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new PageReferenceError(`"${text}" is not a valid URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new PageReferenceError(`Only http(s) URLs of the docs site can be read, not ${url.protocol} URLs.`);
    const site = siteUrl ? new URL(siteUrl) : undefined;
    if (!site) {
      throw new PageReferenceError(
        "This server does not know the address of its docs site (DOCS_SITE_URL is unset): pass the page's path instead, e.g. /docs/intro.",
      );
    }
    if (url.origin !== site.origin)
      throw new PageReferenceError(`Only pages of ${site.origin} can be read; ${url.origin} is another site.`);
    const basePath = site.pathname.replace(/\/+$/, '');
    let pathname = decodePath(url.pathname);
    if (basePath && (pathname === basePath || pathname.startsWith(`${basePath}/`))) pathname = pathname.slice(basePath.length) || '/';
    return { key: checkedPath(pathname), anchor: url.hash ? decodePath(url.hash.slice(1)) : null };
  }
  if (/^[a-z]:[\\/]/i.test(text) || text.startsWith('\\') || text.startsWith('//')) {
    throw new PageReferenceError(
      "Absolute file paths cannot be read: pass the page's URL path (e.g. /docs/intro) or its file path relative to the docs, as search_docs shows it.",
    );
  }
  const hashAt = text.indexOf('#');
  const withoutHash = hashAt === -1 ? text : text.slice(0, hashAt);
  const anchor = hashAt === -1 ? null : text.slice(hashAt + 1) || null;
  const withoutQuery = withoutHash.split('?')[0] ?? '';
  return { key: checkedPath(decodePath(withoutQuery)), anchor };
}

function decodePath(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new PageReferenceError(`"${value}" is not a valid URL path.`);
  }
}

function checkedPath(path: string): string {
  const normalised = path.replace(/\\/g, '/');
  if (normalised.split('/').some((segment) => segment === '..')) {
    throw new PageReferenceError('Paths with ".." cannot be read: only pages of the indexed docs can, by their URL or file path.');
  }
  if (normalised.includes('\0')) throw new PageReferenceError('The path holds a NUL character.');
  return normalised;
}

/** The index's pages by file and by URL, built once per store (an ingest reopens the store, and with it this). */
export class PageCatalogue {
  private readonly byFile = new Map<string, IndexedPage>();
  private readonly byUrl = new Map<string, IndexedPage[]>();

  private constructor(readonly source: PageSource) {}

  static async load(source: PageSource, signal?: AbortSignal): Promise<PageCatalogue> {
    const catalogue = new PageCatalogue(source);
    const files = await source.listFiles(signal);
    const firstIds = files.map((file) => file.chunkIds[0]).filter((id): id is string => id !== undefined);
    for (const chunk of await source.getByIds(firstIds, signal)) {
      const page: IndexedPage = {
        file: chunk.file,
        title: chunk.title,
        url: chunk.pageUrl,
        ...(chunk.version !== undefined ? { version: chunk.version } : {}),
        ...(chunk.locale !== undefined ? { locale: chunk.locale } : {}),
      };
      catalogue.byFile.set(page.file, page);
      const key = urlKey(page.url);
      if (key) catalogue.byUrl.set(key, [...(catalogue.byUrl.get(key) ?? []), page]);
    }
    return catalogue;
  }

  get size(): number {
    return this.byFile.size;
  }

  /** The page a reference names, or null. A URL shared by several files (a record and a page) gives the first indexed. */
  find(reference: PageReference): IndexedPage | null {
    const exact = this.byFile.get(reference.key) ?? this.byFile.get(reference.key.replace(/^\.?\//, ''));
    if (exact) return exact;
    const key = urlKey(reference.key);
    return (key && this.byUrl.get(key)?.[0]) || null;
  }

  /** Up to `limit` pages whose URL or file holds the reference's last path segment (suggestions for a miss). */
  similar(reference: PageReference, limit = 5): IndexedPage[] {
    const last = reference.key
      .split('/')
      .filter(Boolean)
      .pop()
      ?.replace(/\.mdx?$/, '')
      .toLowerCase();
    if (!last) return [];
    return [...this.byFile.values()]
      .filter((page) => page.url.toLowerCase().includes(last) || page.file.toLowerCase().includes(last))
      .slice(0, limit);
  }

  async chunksOf(page: IndexedPage, signal?: AbortSignal): Promise<Chunk[]> {
    return this.source.getByFile(page.file, signal);
  }
}

/** One catalogue per store, shared by every MCP server of the process (HTTP builds one server per request). */
export class PageCatalogues {
  private readonly loaded = new WeakMap<PageSource, Promise<PageCatalogue>>();

  /** `fresh` reloads it: an ingest in another process (the CLI beside `docs-chat mcp`) changes the index under the same store. */
  get(store: PageSource, signal?: AbortSignal, fresh = false): Promise<PageCatalogue> {
    let loading = fresh ? undefined : this.loaded.get(store);
    if (!loading) {
      // Not tied to one caller's signal: the catalogue outlives the request that loads it.
      loading = PageCatalogue.load(store);
      this.loaded.set(store, loading);
      loading.catch(() => this.loaded.delete(store));
    }
    return signal ? raceAbort(loading, signal) : loading;
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** `/docs/intro/` and `/docs/intro` are the same page; an absolute URL in a record keeps its host. */
function urlKey(url: string): string {
  if (url.length === 0) return '';
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.length === 0 ? '/' : trimmed;
}

/**
 * The page as markdown: its title, then each section under a heading carrying its anchor in Docusaurus'
 * `{#anchor}` syntax, so `url#anchor` links to it. Parts of a long section are joined, dropping the text a
 * part repeats from the one before (the chunker's overlap).
 */
export function renderPageMarkdown(page: IndexedPage, chunks: Chunk[], absoluteUrl: (url: string) => string): string {
  const lines: string[] = [`# ${page.title}`, '', `Source: ${absoluteUrl(page.url)}`];
  if (page.version !== undefined || page.locale !== undefined) {
    lines.push(`Version: ${page.version ?? 'n/a'}, locale: ${page.locale ?? 'n/a'}`);
  }
  let previous: Chunk | undefined;
  for (const chunk of [...chunks].sort((a, b) => a.order - b.order)) {
    const sameSection =
      previous !== undefined &&
      previous.anchor === chunk.anchor &&
      previous.headingPath.join('\u0000') === chunk.headingPath.join('\u0000');
    if (!sameSection && chunk.depth > 1 && chunk.heading !== null) {
      const level = '#'.repeat(Math.min(6, Math.max(2, chunk.depth)));
      lines.push('', `${level} ${chunk.heading}${chunk.anchor ? ` {#${chunk.anchor}}` : ''}`);
    }
    const text = sameSection && previous ? withoutRepeatedStart(previous.text, chunk.text) : chunk.text;
    if (text.trim().length > 0) lines.push('', text.trim());
    previous = chunk;
  }
  return `${lines.join('\n')}\n`;
}

/** `current` without the start it repeats from the end of `previous` (at least 20 characters, else unchanged). */
export function withoutRepeatedStart(previous: string, current: string): string {
  const probe = current.slice(0, 20);
  if (probe.length < 20) return current;
  const end = previous.trimEnd();
  for (let at = end.indexOf(probe); at !== -1; at = end.indexOf(probe, at + 1)) {
    const tail = end.slice(at);
    if (current.startsWith(tail)) return current.slice(tail.length).replace(/^\s+/, '');
  }
  return current;
}
