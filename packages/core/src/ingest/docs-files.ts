/** Finding a Docusaurus docs folder's pages and the exact permalinks of a site build. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocsChatError } from '../errors.js';

const PAGE_EXTENSIONS = new Set(['.md', '.mdx']);

export interface DocsFileListing {
  /** Page files relative to the docs folder, forward slashes, sorted. */
  pages: string[];
  /** Files Docusaurus does not turn into pages, with the reason. */
  ignored: { file: string; reason: string }[];
}

/**
 * Lists the pages as the Docusaurus docs plugin would: `.md`/`.mdx` files,
 * leaving out partials (`_name.mdx`, `_folder/`), tests and `node_modules`.
 */
export async function listDocsFiles(docsDir: string): Promise<DocsFileListing> {
  let stat;
  try {
    stat = await fs.stat(docsDir);
  } catch {
    throw new DocsChatError('docs_dir_missing', `The docs folder ${docsDir} does not exist.`, {
      hint: 'Pass the folder holding your markdown with --docs DIR (or set DOCS_DIR).',
    });
  }
  if (!stat.isDirectory()) {
    throw new DocsChatError('docs_dir_missing', `${docsDir} is not a folder.`, {
      hint: 'Pass the folder holding your markdown with --docs DIR (or set DOCS_DIR).',
    });
  }
  const pages: string[] = [];
  const ignored: { file: string; reason: string }[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await fs.readdir(path.join(docsDir, relative), { withFileTypes: true });
    for (const entry of entries) {
      const file = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' || entry.name === '__tests__' || entry.name.startsWith('.')) continue;
        if (entry.name.startsWith('_')) {
          ignored.push({ file: `${file}/`, reason: 'folder starting with "_": Docusaurus treats it as partials, not pages' });
          continue;
        }
        await walk(file);
      } else if (entry.isFile() && PAGE_EXTENSIONS.has(path.extname(entry.name).toLowerCase())) {
        if (entry.name.startsWith('_')) {
          ignored.push({ file, reason: 'partial (name starts with "_"): not a page of its own' });
        } else {
          pages.push(file);
        }
      }
    }
  };
  await walk('');
  pages.sort();
  return { pages, ignored };
}

interface PermalinksFile {
  version: number;
  docs: { source: string; permalink: string }[];
}

/** Candidate places where the Docusaurus plugin writes the build's permalinks, relative to a docs folder. */
function defaultPermalinkFiles(docsDir: string): string[] {
  const siteDir = path.dirname(docsDir);
  return [path.join(siteDir, 'build', 'docs-chat-permalinks.json'), path.join(siteDir, '.docusaurus', 'docs-chat', 'permalinks.json')];
}

/**
 * Exact permalinks by source path (relative to the docs folder), or an empty
 * map when no site build is available (URLs are then computed).
 */
export async function loadPermalinks(docsDir: string, explicitFile?: string): Promise<Map<string, string>> {
  const candidates = explicitFile ? [explicitFile] : defaultPermalinkFiles(docsDir);
  for (const file of candidates) {
    let raw: string;
    try {
      raw = await fs.readFile(file, 'utf8');
    } catch {
      if (explicitFile) {
        throw new DocsChatError('config_invalid', `The permalinks file ${file} cannot be read.`, {
          hint: 'Build the Docusaurus site with the docs-chat plugin first, or unset DOCS_PERMALINKS_FILE.',
        });
      }
      continue;
    }
    try {
      const parsed = JSON.parse(raw) as PermalinksFile;
      if (parsed.version !== 1 || !Array.isArray(parsed.docs)) throw new Error('unknown format');
      return new Map(parsed.docs.map((doc) => [doc.source.replace(/\\/g, '/'), doc.permalink]));
    } catch {
      throw new DocsChatError('config_invalid', `The permalinks file ${file} is not in the expected format.`, {
        hint: 'Rebuild the Docusaurus site with the same docs-chat plugin version, or delete the file.',
      });
    }
  }
  return new Map();
}
