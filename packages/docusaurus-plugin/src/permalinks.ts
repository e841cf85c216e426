import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { AllContent } from '@docusaurus/types';

/**
 * The permalinks hand-off: the ingest reads this file so that the URL of each
 * chunk is exactly the URL of the page in this build (slugs, `id:` front
 * matter, number prefixes and trailing-slash settings all included).
 */
export interface PermalinksFile {
  version: 1;
  docs: PermalinkEntry[];
}

export interface PermalinkEntry {
  /** Path of the source file relative to the docs content folder, with forward slashes, e.g. "guides/ingest.md". */
  source: string;
  /** The page's path in the build, e.g. "/docs/guides/ingest". */
  permalink: string;
  id: string;
  title: string;
  /** `unlisted: true` in its front matter: built and reachable, but kept out of search (the static index leaves it out). */
  unlisted?: true;
}

export const PERMALINKS_GENERATED_PATH = join('docs-chat', 'permalinks.json');
export const PERMALINKS_BUILD_FILE = 'docs-chat-permalinks.json';

// The slice of @docusaurus/plugin-content-docs' loaded content that we read;
// typed loosely because that plugin is the site's dependency, not ours.
interface LoadedDoc {
  id: string;
  title: string;
  source: string;
  permalink: string;
  unlisted?: boolean;
}
interface LoadedVersion {
  versionName: string;
  contentPath: string;
  contentPathLocalized?: string;
  docs: LoadedDoc[];
}

function isLoadedVersion(value: unknown): value is LoadedVersion {
  if (typeof value !== 'object' || value === null) return false;
  const version = value as Partial<LoadedVersion>;
  return typeof version.versionName === 'string' && typeof version.contentPath === 'string' && Array.isArray(version.docs);
}

/** `@site/docs/a.md` -> absolute path; sources outside the site are already absolute. */
export function resolveAliasedSource(source: string, siteDir: string): string {
  if (source.startsWith('@site/')) return join(siteDir, source.slice('@site/'.length));
  return source;
}

function relativeInside(folder: string | undefined, file: string): string | null {
  if (!folder) return null;
  const path = relative(folder, file);
  if (path === '' || path.startsWith('..') || isAbsolute(path)) return null;
  return path.split(sep).join('/');
}

/**
 * Collects the docs of the current version (the files in the docs folder the
 * ingest reads) of the default docs plugin instance.
 */
export function collectPermalinks(allContent: AllContent, siteDir: string, docsPluginId = 'default'): PermalinksFile {
  const docsContent = allContent['docusaurus-plugin-content-docs']?.[docsPluginId] as { loadedVersions?: unknown[] } | undefined;
  const versions = (docsContent?.loadedVersions ?? []).filter(isLoadedVersion);
  const current = versions.find((version) => version.versionName === 'current') ?? versions[0];
  const docs: PermalinkEntry[] = [];
  for (const doc of current?.docs ?? []) {
    const absolute = resolveAliasedSource(doc.source, siteDir);
    const source = relativeInside(current?.contentPath, absolute) ?? relativeInside(current?.contentPathLocalized, absolute);
    if (source === null) continue;
    docs.push({
      source,
      permalink: doc.permalink,
      id: doc.id,
      title: doc.title,
      ...(doc.unlisted === true ? { unlisted: true as const } : {}),
    });
  }
  docs.sort((a, b) => a.source.localeCompare(b.source));
  return { version: 1, docs };
}

export async function writePermalinksFile(path: string, file: PermalinksFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, 'utf8');
}
