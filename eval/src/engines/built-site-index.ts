/**
 * The static search index a `docusaurus build` wrote (`<build>/docs-chat/`),
 * read the way the browser reads it, with each section traced back to its
 * markdown file through the permalinks the plugin also wrote, so the
 * evaluation can score it. This is the index readers actually search.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Chunk } from '@docs-chat/core';
import {
  SEARCH_FILES_FOLDER,
  SEARCH_MANIFEST_FILE,
  parseSearchIndex,
  parseSearchManifest,
  type SearchIndexFile,
} from '../../../packages/docusaurus-plugin/src/static-search/index-format.js';

export interface BuiltSiteIndex {
  index: SearchIndexFile;
  /** Section i as a chunk (file, heading path with the title first, depth, URL) for hit matching. */
  chunks: Chunk[];
}

const PERMALINKS_FILE = 'docs-chat-permalinks.json';

export async function loadBuiltSiteIndex(buildDir: string): Promise<BuiltSiteIndex> {
  const folder = path.join(buildDir, SEARCH_FILES_FOLDER);
  let manifestText: string;
  try {
    manifestText = await fs.readFile(path.join(folder, SEARCH_MANIFEST_FILE), 'utf8');
  } catch {
    throw new Error(
      `${path.join(folder, SEARCH_MANIFEST_FILE)} is missing: pass the output folder of a \`docusaurus build\` made with the docs-chat plugin (search.staticIndex on, the default).`,
    );
  }
  const manifest = parseSearchManifest(JSON.parse(manifestText));
  const index = parseSearchIndex(JSON.parse(await fs.readFile(path.join(folder, manifest.index), 'utf8')));
  let permalinks: { docs: { source: string; permalink: string }[] };
  try {
    permalinks = JSON.parse(await fs.readFile(path.join(buildDir, PERMALINKS_FILE), 'utf8')) as typeof permalinks;
  } catch (error) {
    throw new Error(
      `${path.join(buildDir, PERMALINKS_FILE)} cannot be read (${(error as Error).message}): build the site with the plugin's writePermalinks option on (the default).`,
    );
  }
  const fileOfPage = new Map(permalinks.docs.map((doc) => [doc.permalink, doc.source]));
  const chunks = index.sections.map(([page, anchor, headings, depth, text], order): Chunk => {
    const [pageUrl, title] = index.pages[page] ?? ['', ''];
    const file = fileOfPage.get(pageUrl);
    if (file === undefined) throw new Error(`The index has a page ${pageUrl} that ${PERMALINKS_FILE} does not list.`);
    const url = anchor === '' ? pageUrl : `${pageUrl}#${anchor}`;
    return {
      id: `${url}\u0000${order}`,
      file,
      docId: file,
      title,
      heading: headings.at(-1) ?? null,
      headingPath: [title, ...headings],
      depth,
      anchor: anchor === '' ? null : anchor,
      url,
      pageUrl,
      part: 0,
      text,
      indexText: text,
      tokens: 0,
      hash: '',
      fileHash: '',
      order,
    };
  });
  return { index, chunks };
}
