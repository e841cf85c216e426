/**
 * A docs folder as the in-browser search sees it, built from the markdown
 * (for corpora that have no Docusaurus site, such as the redux docs): the
 * server's own parser and chunker cut the pages into sections, and the
 * sections go into the same index file format the plugin writes from a
 * site's built HTML. Section i of the index is chunk i, so evaluation can
 * score hits by file and heading path.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { chunkDocument, decodeSourceFile, listDocsFiles, loadPermalinks, parseDocument, type Chunk } from '@docs-chat/core';
import {
  SEARCH_INDEX_FORMAT,
  SEARCH_INDEX_VERSION,
  type IndexedPage,
  type IndexedSection,
  type SearchIndexFile,
} from '../../../packages/docusaurus-plugin/src/static-search/index-format.js';

export interface MarkdownCorpus {
  chunks: Chunk[];
  index: SearchIndexFile;
}

export async function loadMarkdownCorpus(docsDir: string, permalinksFile?: string): Promise<MarkdownCorpus> {
  const listing = await listDocsFiles(docsDir);
  const permalinks = await loadPermalinks(docsDir, permalinksFile);
  const chunks: Chunk[] = [];
  for (const file of listing.pages) {
    const decoded = decodeSourceFile(await fs.readFile(path.join(docsDir, file)));
    if (!decoded.ok) continue;
    const document = parseDocument({ file, text: decoded.text, permalink: permalinks.get(file) });
    chunks.push(...chunkDocument(document, { fileHash: '' }));
  }
  return { chunks, index: indexFromChunks(chunks) };
}

/** The static index of a list of chunks, one section per chunk, in order. */
export function indexFromChunks(chunks: readonly Chunk[]): SearchIndexFile {
  const pages: IndexedPage[] = [];
  const pageNumbers = new Map<string, number>();
  const sections: IndexedSection[] = chunks.map((chunk) => {
    let page = pageNumbers.get(chunk.pageUrl);
    if (page === undefined) {
      page = pages.length;
      pageNumbers.set(chunk.pageUrl, page);
      pages.push([chunk.pageUrl, chunk.title]);
    }
    return [page, chunk.anchor ?? '', chunk.headingPath.slice(1), chunk.depth, chunk.text];
  });
  return { format: SEARCH_INDEX_FORMAT, version: SEARCH_INDEX_VERSION, pages, sections };
}
