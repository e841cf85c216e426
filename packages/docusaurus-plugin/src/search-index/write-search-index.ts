/**
 * At the end of `docusaurus build`: reads the built page of every doc, cuts it
 * into sections and writes the static search index with a content-hashed name,
 * plus the small manifest that names it, under `<build>/docs-chat/`.
 *
 * This runs in the build's own process rather than a worker thread: postBuild
 * comes after the bundler has finished, nothing waits on the event loop but
 * the other plugins' postBuild file writes, and the pages are read one at a
 * time with awaits between them (about 1 ms of parsing per page).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  SEARCH_FILES_FOLDER,
  SEARCH_INDEX_FORMAT,
  SEARCH_INDEX_VERSION,
  SEARCH_MANIFEST_FILE,
  SEARCH_MANIFEST_FORMAT,
  type IndexedPage,
  type IndexedSection,
  type SearchIndexFile,
  type SearchManifestFile,
} from '../static-search/index-format.js';
import { extractPageSections } from './html-sections.js';
import { sectionParts } from './section-parts.js';

export interface IndexedDoc {
  /** The page's path in the build, base URL included, e.g. "/docs/guides/ingest" or "/docs/guides/ingest/". */
  permalink: string;
  title: string;
  /** Where the doc came from, for messages. */
  source: string;
  /** An unlisted page (`unlisted: true`): Docusaurus keeps it out of search, and so does this index. */
  unlisted?: true;
}

export interface SearchIndexWrite {
  /** What was written; null when no doc had a built page with docs content (nothing is written then). */
  written: { manifest: SearchManifestFile; indexFile: string; manifestFile: string } | null;
  /** Docs whose built page could not be found or held no docs content. */
  skipped: { source: string; reason: string }[];
}

/** Candidate files of a page in the build: `path/index.html` (trailingSlash true or unset) or `path.html` (false). */
export function builtPageFiles(outDir: string, baseUrl: string, permalink: string): string[] {
  const withoutBase = permalink.startsWith(baseUrl) ? permalink.slice(baseUrl.length) : permalink.replace(/^\/+/, '');
  const path = decodeURIComponent(withoutBase).replace(/\/+$/, '');
  if (path === '') return [join(outDir, 'index.html')];
  return [join(outDir, path, 'index.html'), join(outDir, `${path}.html`)];
}

async function readFirst(files: string[]): Promise<string | null> {
  for (const file of files) {
    try {
      return await readFile(file, 'utf8');
    } catch {
      // try the next layout
    }
  }
  return null;
}

/** Builds the index file's content from the built pages; the docs keep their order. */
export async function buildSearchIndex(
  outDir: string,
  baseUrl: string,
  docs: readonly IndexedDoc[],
): Promise<{ index: SearchIndexFile; skipped: SearchIndexWrite['skipped'] }> {
  const pages: IndexedPage[] = [];
  const sections: IndexedSection[] = [];
  const skipped: SearchIndexWrite['skipped'] = [];
  for (const doc of docs) {
    if (doc.unlisted) continue;
    const html = await readFirst(builtPageFiles(outDir, baseUrl, doc.permalink));
    if (html === null) {
      skipped.push({ source: doc.source, reason: `no built page for ${doc.permalink}` });
      continue;
    }
    const page = extractPageSections(html);
    if (page === null) {
      skipped.push({ source: doc.source, reason: `the page ${doc.permalink} has no docs content (no .theme-doc-markdown or <article>)` });
      continue;
    }
    const pageNumber = pages.length;
    pages.push([doc.permalink, page.title ?? doc.title]);
    for (const section of page.sections) {
      for (const part of sectionParts(section)) sections.push([pageNumber, part.anchor, part.headings, part.depth, part.text]);
    }
  }
  return { index: { format: SEARCH_INDEX_FORMAT, version: SEARCH_INDEX_VERSION, pages, sections }, skipped };
}

export async function writeSearchIndex(outDir: string, baseUrl: string, docs: readonly IndexedDoc[]): Promise<SearchIndexWrite> {
  const { index, skipped } = await buildSearchIndex(outDir, baseUrl, docs);
  if (index.pages.length === 0) return { written: null, skipped };
  const content = JSON.stringify(index);
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 12);
  const folder = join(outDir, SEARCH_FILES_FOLDER);
  const indexName = `search-index.${hash}.json`;
  const manifest: SearchManifestFile = {
    format: SEARCH_MANIFEST_FORMAT,
    version: SEARCH_INDEX_VERSION,
    index: indexName,
    pages: index.pages.length,
    sections: index.sections.length,
  };
  await mkdir(folder, { recursive: true });
  const indexFile = join(folder, indexName);
  const manifestFile = join(folder, SEARCH_MANIFEST_FILE);
  await writeFile(indexFile, content, 'utf8');
  await writeFile(manifestFile, `${JSON.stringify(manifest)}\n`, 'utf8');
  return { written: { manifest, indexFile, manifestFile }, skipped };
}
