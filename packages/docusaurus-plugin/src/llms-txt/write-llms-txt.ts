/**
 * llms.txt for the build (https://llmstxt.org): at `docusaurus build` the
 * plugin writes
 *   - `llms.txt`: the site's title, its summary as a quote, then one link per
 *     doc page with its description, under one `##` heading per sidebar category;
 *   - `llms-full.txt`: every one of those pages as clean markdown, in the same order;
 *   - a `.md` twin beside each page (`/docs/intro` -> `/docs/intro.md`,
 *     `/docs/guide/` -> `/docs/guide/index.html.md`, as llmstxt.org proposes),
 *     which the links of llms.txt point to.
 * Pages come from the docs plugin's loaded content (the last version of each
 * docs instance: the one served at its root), read from their .md/.mdx source.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AllContent } from '@docusaurus/types';
import { resolveAliasedSource } from '../permalinks.js';
import { toCleanMarkdown } from './clean-markdown.js';

export interface LlmsTxtPage {
  title: string;
  description: string;
  /** Full path of the page with the base URL, e.g. `/docs/intro`. */
  permalink: string;
  /** Absolute path of the source file. */
  sourceFile: string;
  /** The `##` group of llms.txt: the page's top-level sidebar category. */
  group: string;
}

export interface LlmsTxtSite {
  title: string;
  summary: string;
  /** `siteConfig.url`, e.g. https://docs.example.com (no trailing slash needed). */
  url: string;
  baseUrl: string;
}

/** Group of a page at the top of a sidebar (no category) and of pages in no sidebar. */
export const TOP_LEVEL_GROUP = 'Docs';
export const UNLISTED_GROUP = 'Other pages';

interface LoadedDoc {
  id: string;
  title: string;
  description?: string;
  source: string;
  permalink: string;
  unlisted?: boolean;
  draft?: boolean;
  frontMatter?: Record<string, unknown>;
}
interface LoadedVersion {
  isLast?: boolean;
  docs: LoadedDoc[];
  sidebars?: Record<string, SidebarItem[]>;
}
interface SidebarItem {
  type: string;
  id?: string;
  label?: string;
  items?: SidebarItem[];
  link?: { type: string; id?: string };
}

/** The doc ids of a sidebar in reading order, each with its top-level category label. */
function sidebarGroups(items: SidebarItem[], group: string | null, into: Map<string, string>): void {
  for (const item of items) {
    if ((item.type === 'doc' || item.type === 'ref') && item.id && !into.has(item.id)) into.set(item.id, group ?? TOP_LEVEL_GROUP);
    if (item.type === 'category') {
      const label = group ?? item.label ?? TOP_LEVEL_GROUP;
      if (item.link?.type === 'doc' && item.link.id && !into.has(item.link.id)) into.set(item.link.id, label);
      sidebarGroups(item.items ?? [], label, into);
    }
  }
}

/** The pages to list: every published doc of the last version of each docs instance, in sidebar order, then the rest. */
export function collectLlmsPages(allContent: AllContent, siteDir: string): LlmsTxtPage[] {
  const instances = (allContent['docusaurus-plugin-content-docs'] ?? {}) as Record<
    string,
    { loadedVersions?: LoadedVersion[] } | undefined
  >;
  const pages: LlmsTxtPage[] = [];
  for (const content of Object.values(instances)) {
    const versions = (content?.loadedVersions ?? []).filter((version) => Array.isArray(version.docs));
    const version = versions.find((candidate) => candidate.isLast) ?? versions[0];
    if (!version) continue;
    const order = new Map<string, string>();
    for (const items of Object.values(version.sidebars ?? {})) sidebarGroups(items, null, order);
    const docs = version.docs.filter((doc) => !doc.unlisted && !doc.draft);
    const byId = new Map(docs.map((doc) => [doc.id, doc]));
    const listed = [...order.keys()].map((id) => byId.get(id)).filter((doc): doc is LoadedDoc => doc !== undefined);
    const rest = docs.filter((doc) => !order.has(doc.id)).sort((a, b) => a.permalink.localeCompare(b.permalink));
    for (const doc of [...listed, ...rest]) {
      pages.push({
        title: doc.title,
        description: (doc.description ?? '').trim(),
        permalink: doc.permalink,
        sourceFile: resolveAliasedSource(doc.source, siteDir),
        group: order.get(doc.id) ?? UNLISTED_GROUP,
      });
    }
  }
  return pages;
}

/** Where the `.md` twin of a page goes, relative to the build folder, and its URL path. */
export function markdownTwinPath(permalink: string, baseUrl: string): { file: string; urlPath: string } {
  const urlPath = permalink.endsWith('/') ? `${permalink}index.html.md` : `${permalink}.md`;
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const inside = urlPath.startsWith(base) ? urlPath.slice(base.length) : urlPath.replace(/^\/+/, '');
  return { file: inside, urlPath };
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

export interface LlmsTxtResult {
  pages: number;
  skipped: { source: string; reason: string }[];
  files: { llmsTxt: string; llmsFullTxt: string };
}

export async function writeLlmsTxt(outDir: string, site: LlmsTxtSite, pages: LlmsTxtPage[]): Promise<LlmsTxtResult> {
  const origin = site.url.replace(/\/+$/, '');
  const groups = new Map<string, string[]>();
  const fullText: string[] = [`# ${oneLine(site.title)}`, ''];
  if (site.summary) fullText.push(`> ${oneLine(site.summary)}`, '');
  const skipped: LlmsTxtResult['skipped'] = [];
  let written = 0;
  for (const page of pages) {
    let source: string;
    try {
      source = await readFile(page.sourceFile, 'utf8');
    } catch (error) {
      skipped.push({ source: page.sourceFile, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
      continue;
    }
    const clean = toCleanMarkdown(source);
    const twin = markdownTwinPath(page.permalink, site.baseUrl);
    const pageUrl = `${origin}${page.permalink}`;
    const body = clean.startsWithTitle ? clean.markdown : `# ${oneLine(page.title)}\n\n${clean.markdown}`;
    const twinText = `${body.trimEnd()}\n`;
    await mkdir(dirname(join(outDir, twin.file)), { recursive: true });
    await writeFile(join(outDir, twin.file), twinText, 'utf8');
    fullText.push(`${twinText.trimEnd()}\n\nSource: ${pageUrl}`, '', '---', '');
    const link = `- [${oneLine(page.title).replace(/[[\]]/g, '\\$&')}](${origin}${twin.urlPath})${page.description ? `: ${oneLine(page.description)}` : ''}`;
    groups.set(page.group, [...(groups.get(page.group) ?? []), link]);
    written += 1;
  }
  const index: string[] = [`# ${oneLine(site.title)}`, ''];
  if (site.summary) index.push(`> ${oneLine(site.summary)}`, '');
  index.push(`Each link is the markdown version of a page of ${origin}${site.baseUrl}; llms-full.txt holds all of them in one file.`, '');
  for (const [group, links] of groups) index.push(`## ${group}`, '', ...links, '');
  const llmsTxt = join(outDir, 'llms.txt');
  const llmsFullTxt = join(outDir, 'llms-full.txt');
  await writeFile(llmsTxt, `${index.join('\n').trimEnd()}\n`, 'utf8');
  await writeFile(
    llmsFullTxt,
    `${fullText
      .join('\n')
      .trimEnd()
      .replace(/\n---$/, '')
      .trimEnd()}\n`,
    'utf8',
  );
  return { pages: written, skipped, files: { llmsTxt, llmsFullTxt } };
}
