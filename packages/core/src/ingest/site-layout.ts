/**
 * A whole Docusaurus site as the docs and blog plugins see it: every docs
 * instance with its versions (`versions.json`, `versioned_docs/version-X`),
 * every locale (`i18n/<locale>/docusaurus-plugin-content-docs[-id]/<version>`)
 * and the blog, each turned into a content set that knows its URL base. The
 * routing follows @docusaurus/plugin-content-docs 3.10 (versions/version.js,
 * versions/files.js): the last version is served at the route base, the
 * current docs at `next` once versions exist, other versions at their name,
 * a version's `path` option wins, and non-default locales get `/<locale>`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocsChatError } from '../errors.js';

export const DEFAULT_DOCS_INSTANCE = 'default';
export const BLOG_INSTANCE = 'blog';
export const CURRENT_VERSION = 'current';

export interface SiteInstanceOptions {
  /** The docs plugin id (`default` for the main docs). */
  id: string;
  /** Folder of the current docs, relative to the site root (`docs` for the default instance, the id otherwise). */
  path?: string;
  /** The plugin's `routeBasePath` (`docs` for the default instance, the id otherwise). */
  routeBasePath?: string;
  /** The plugin's `lastVersion`: the version served at the route base. */
  lastVersion?: string;
  /** The plugin's `onlyIncludeVersions`. */
  onlyIncludeVersions?: string[];
  /** The plugin's `includeCurrentVersion` (true by default). */
  includeCurrentVersion?: boolean;
  /** Per-version options; only `path` changes URLs. */
  versions?: Record<string, { path?: string; label?: string }>;
}

export interface SiteOptions {
  siteDir: string;
  /** The site's `i18n.defaultLocale` (`en` by default). */
  defaultLocale?: string;
  /** The locales to index; by default the default locale and every `i18n/<locale>` folder holding translated docs or posts. */
  locales?: string[];
  /** Docs instances besides (or overriding) the ones found from the site's folders. */
  instances?: SiteInstanceOptions[];
  /** `false` leaves the blog out; by default `blog/` is indexed when it exists, at `/blog`. */
  blog?: false | { path?: string; routeBasePath?: string };
}

/** One folder of pages with everything that decides their URLs and scope. */
export interface ContentSet {
  kind: 'docs' | 'blog';
  instance: string;
  /** Docs version name (`current`, `2.0`); absent for the blog. */
  version?: string;
  locale: string;
  /** The folder Docusaurus lists pages from (the default locale's). */
  dir: string;
  /** The translated folder whose files replace the default ones, for a non-default locale. */
  localizedDir?: string;
  /** Locale whose text an untranslated page keeps. */
  defaultLocale: string;
  /** URL base of the set's pages, locale and version included (e.g. `/fr/docs/1.0`). */
  routeBasePath: string;
  /** Prefix of the set's file keys in the index (see siteFileKey). */
  keyPrefix: string;
}

export interface SiteVersionInfo {
  instance: string;
  name: string;
  label: string;
  /** URL part after the route base ('' for the last version). */
  path: string;
  /** True for the version served at the route base. */
  last: boolean;
}

export interface SiteLayout {
  siteDir: string;
  defaultLocale: string;
  locales: string[];
  instances: string[];
  versions: SiteVersionInfo[];
  sets: ContentSet[];
  /** Things worth telling the admin that do not stop the ingest. */
  warnings: { file: string; reason: string }[];
}

/** What the index keeps of the layout, so search can name versions and locales. */
export interface SiteSummary {
  defaultLocale: string;
  locales: string[];
  instances: string[];
  versions: SiteVersionInfo[];
}

/** `site:<instance>:<version>:<locale>/` — the scope travels in the file key, so stores can filter on it without reading payloads. */
export function siteKeyPrefix(scope: { instance: string; version?: string | undefined; locale: string }): string {
  return `site:${scope.instance}:${scope.version ?? ''}:${scope.locale}/`;
}

const SITE_KEY = /^site:([^:/]*):([^:/]*):([^:/]*)\//;

/** The scope of a file key written by a site ingest, or null for a plain docs folder's key. */
export function scopeOfFileKey(file: string): { instance: string; version: string; locale: string } | null {
  const match = SITE_KEY.exec(file);
  if (!match) return null;
  return { instance: match[1] as string, version: match[2] as string, locale: match[3] as string };
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await fs.stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

async function hasPages(dir: string): Promise<boolean> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return false;
  }
  return entries.some((entry) => entry.isFile() && /\.mdx?$/i.test(entry.name));
}

function withPluginPrefix(name: string, pluginId: string): string {
  return pluginId === DEFAULT_DOCS_INSTANCE ? name : `${pluginId}_${name}`;
}

function docsPluginI18nFolder(pluginId: string): string {
  return pluginId === DEFAULT_DOCS_INSTANCE ? 'docusaurus-plugin-content-docs' : `docusaurus-plugin-content-docs-${pluginId}`;
}

/** Joins URL pieces with single slashes, no trailing slash (except the root). */
export function joinRoute(...pieces: string[]): string {
  const joined = `/${pieces
    .map((piece) => piece.trim().replace(/^\/+|\/+$/g, ''))
    .filter((piece) => piece !== '')
    .join('/')}`;
  return joined;
}

async function readVersionsFile(siteDir: string, pluginId: string): Promise<string[] | null> {
  const file = path.join(siteDir, withPluginPrefix('versions.json', pluginId));
  let raw: string;
  try {
    raw = await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new DocsChatError('site_invalid', `${file} is not valid JSON (${(error as Error).message}).`, {
      hint: 'Fix the file: it must be a JSON array of version names, newest first, e.g. ["2.0", "1.0"].',
    });
  }
  if (!Array.isArray(parsed) || !parsed.every((entry) => typeof entry === 'string' && entry.trim() !== '')) {
    throw new DocsChatError('site_invalid', `${file} must be a JSON array of version names.`, {
      hint: 'Write it as Docusaurus does, newest first, e.g. ["2.0", "1.0"].',
    });
  }
  return parsed as string[];
}

/** Instance ids found from the site's folders: `<id>_versions.json`, `<id>_versioned_docs/`, or translations of `docusaurus-plugin-content-docs-<id>`. */
async function discoverInstanceIds(siteDir: string, locales: string[]): Promise<string[]> {
  const ids = new Set<string>();
  for (const entry of await fs.readdir(siteDir, { withFileTypes: true })) {
    const fromVersions = /^(.+)_versions\.json$/.exec(entry.name);
    const fromVersioned = /^(.+)_versioned_docs$/.exec(entry.name);
    const id = fromVersions?.[1] ?? (entry.isDirectory() ? fromVersioned?.[1] : undefined);
    if (id) ids.add(id);
  }
  for (const locale of locales) {
    const dir = path.join(siteDir, 'i18n', locale);
    let entries: string[] = [];
    try {
      entries = await fs.readdir(dir);
    } catch {
      continue;
    }
    for (const name of entries) {
      const match = /^docusaurus-plugin-content-docs-(.+)$/.exec(name);
      if (match?.[1]) ids.add(match[1]);
    }
  }
  return [...ids].sort();
}

/**
 * Reads a site root into content sets. Throws `site_invalid` for what Docusaurus
 * itself would refuse (a listed version without its folder, two instances on one
 * folder); softer problems become warnings.
 */
export async function readSiteLayout(options: SiteOptions): Promise<SiteLayout> {
  const siteDir = path.resolve(options.siteDir);
  if (!(await isDirectory(siteDir))) {
    throw new DocsChatError('docs_dir_missing', `The site folder ${siteDir} does not exist.`, {
      hint: 'Pass the Docusaurus site root (the folder holding docusaurus.config.*) with --site DIR.',
    });
  }
  const warnings: SiteLayout['warnings'] = [];
  const defaultLocale = options.defaultLocale ?? 'en';

  // Locales: the listed ones, else the default plus every i18n folder.
  let i18nFolders: string[] = [];
  try {
    i18nFolders = (await fs.readdir(path.join(siteDir, 'i18n'), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch {
    i18nFolders = [];
  }
  const candidateLocales = options.locales ?? [defaultLocale, ...i18nFolders.filter((locale) => locale !== defaultLocale)];
  if (!candidateLocales.includes(defaultLocale)) candidateLocales.unshift(defaultLocale);

  // Instances: the default one, those found from folders, and the listed ones (which win).
  const listed = new Map((options.instances ?? []).map((instance) => [instance.id, instance]));
  const ids = new Set<string>([DEFAULT_DOCS_INSTANCE, ...(await discoverInstanceIds(siteDir, candidateLocales)), ...listed.keys()]);
  const instances: Required<Pick<SiteInstanceOptions, 'id' | 'path' | 'routeBasePath'>>[] & SiteInstanceOptions[] = [];
  for (const id of [...ids].sort((a, b) => (a === DEFAULT_DOCS_INSTANCE ? -1 : b === DEFAULT_DOCS_INSTANCE ? 1 : a.localeCompare(b)))) {
    const given = listed.get(id) ?? { id };
    const folder = given.path ?? (id === DEFAULT_DOCS_INSTANCE ? 'docs' : id);
    const exists = await isDirectory(path.join(siteDir, folder));
    const versioned = await isDirectory(path.join(siteDir, withPluginPrefix('versioned_docs', id)));
    if (!exists && !versioned) {
      if (listed.get(id)?.path !== undefined || id !== DEFAULT_DOCS_INSTANCE) {
        throw new DocsChatError('site_invalid', `The docs instance "${id}" has no folder: ${path.join(siteDir, folder)} does not exist.`, {
          hint: `Pass its folder with --instance ${id}=FOLDER[:ROUTE_BASE], or remove the files that name it (${withPluginPrefix('versions.json', id)}, ${withPluginPrefix('versioned_docs', id)}/).`,
        });
      }
      continue;
    }
    instances.push({ ...given, id, path: folder, routeBasePath: given.routeBasePath ?? (id === DEFAULT_DOCS_INSTANCE ? 'docs' : id) });
  }
  const byFolder = new Map<string, string>();
  for (const instance of instances) {
    const folder = path.resolve(siteDir, instance.path);
    const other = byFolder.get(folder);
    if (other !== undefined) {
      throw new DocsChatError(
        'site_invalid',
        `The docs instances "${other}" and "${instance.id}" both read ${folder}: every doc in it would have the same id in two instances.`,
        {
          hint: 'Give each instance its own folder (--instance ID=FOLDER), or drop one of them.',
        },
      );
    }
    byFolder.set(folder, instance.id);
  }
  const byRoute = new Map<string, string>();
  for (const instance of instances) {
    const route = joinRoute(instance.routeBasePath);
    const other = byRoute.get(route);
    if (other !== undefined) {
      throw new DocsChatError(
        'site_invalid',
        `The docs instances "${other}" and "${instance.id}" are both served at ${route}: docs with the same id would share one URL.`,
        {
          hint: `Give "${instance.id}" its own route base (--instance ${instance.id}=FOLDER:ROUTE_BASE), as its plugin's routeBasePath is.`,
        },
      );
    }
    byRoute.set(route, instance.id);
  }

  // Versions of each instance, with their URL part and folder.
  const versions: SiteVersionInfo[] = [];
  const versionFolders = new Map<string, string>();
  for (const instance of instances) {
    const released = (await readVersionsFile(siteDir, instance.id)) ?? [];
    for (const name of released) {
      const folder = path.join(siteDir, withPluginPrefix('versioned_docs', instance.id), `version-${name}`);
      if (!(await isDirectory(folder))) {
        throw new DocsChatError(
          'site_invalid',
          `${withPluginPrefix('versions.json', instance.id)} lists version "${name}", but its docs folder ${path.relative(siteDir, folder)}/ does not exist.`,
          {
            hint: `Restore the folder (docusaurus docs:version ${name} creates it) or remove "${name}" from ${withPluginPrefix('versions.json', instance.id)}.`,
          },
        );
      }
      const sidebars = path.join(siteDir, withPluginPrefix('versioned_sidebars', instance.id), `version-${name}-sidebars.json`);
      try {
        await fs.access(sidebars);
      } catch {
        warnings.push({
          file: path.relative(siteDir, sidebars),
          reason: `missing: Docusaurus builds version ${name} without its own sidebar`,
        });
      }
      versionFolders.set(`${instance.id}\0${name}`, folder);
    }
    const includeCurrent = instance.includeCurrentVersion !== false;
    let names = [...(includeCurrent ? [CURRENT_VERSION] : []), ...released];
    if (includeCurrent) versionFolders.set(`${instance.id}\0${CURRENT_VERSION}`, path.join(siteDir, instance.path));
    if (instance.onlyIncludeVersions) {
      const unknown = instance.onlyIncludeVersions.filter((name) => !names.includes(name));
      if (unknown.length > 0) {
        throw new DocsChatError(
          'site_invalid',
          `onlyIncludeVersions of "${instance.id}" names unknown version(s): ${unknown.join(', ')}.`,
          {
            hint: `Use names from ${withPluginPrefix('versions.json', instance.id)} or "${CURRENT_VERSION}".`,
          },
        );
      }
      names = names.filter((name) => instance.onlyIncludeVersions?.includes(name));
    }
    const lastVersion = instance.lastVersion ?? released[0] ?? CURRENT_VERSION;
    if (!names.includes(lastVersion) && instance.lastVersion !== undefined) {
      throw new DocsChatError(
        'site_invalid',
        `lastVersion "${lastVersion}" of "${instance.id}" is not one of its versions (${names.join(', ')}).`,
        {
          hint: 'Set --last-version to a version listed in versions.json, or to "current".',
        },
      );
    }
    for (const name of names) {
      const defaultPath = name === lastVersion ? '' : name === CURRENT_VERSION ? 'next' : name;
      const option = instance.versions?.[name];
      versions.push({
        instance: instance.id,
        name,
        label: option?.label ?? (name === CURRENT_VERSION ? 'Next' : name),
        path: option?.path ?? defaultPath,
        last: name === lastVersion,
      });
    }
  }

  // Locales that have something translated; one without any is left out unless listed.
  const locales: string[] = [];
  const blogDir = options.blog === false ? null : path.join(siteDir, options.blog?.path ?? 'blog');
  const blogExists = blogDir !== null && (await isDirectory(blogDir));
  for (const locale of candidateLocales) {
    if (locale === defaultLocale) {
      locales.push(locale);
      continue;
    }
    const localeDir = path.join(siteDir, 'i18n', locale);
    const translated =
      (await Promise.all(instances.map((instance) => hasPages(path.join(localeDir, docsPluginI18nFolder(instance.id)))))).some(Boolean) ||
      (blogExists && (await hasPages(path.join(localeDir, 'docusaurus-plugin-content-blog'))));
    if (translated || options.locales?.includes(locale)) {
      locales.push(locale);
      if (!translated)
        warnings.push({
          file: `i18n/${locale}/`,
          reason: "no translated docs or posts: its pages are indexed with the default locale's text",
        });
    } else {
      warnings.push({
        file: `i18n/${locale}/`,
        reason: `no translated docs (nothing under i18n/${locale}/docusaurus-plugin-content-docs/): locale left out; list it with --locales to index its pages in the default locale's text`,
      });
    }
  }

  const sets: ContentSet[] = [];
  for (const locale of locales) {
    const localePrefix = locale === defaultLocale ? '' : locale;
    for (const version of versions) {
      const instance = instances.find((candidate) => candidate.id === version.instance) as SiteInstanceOptions & {
        path: string;
        routeBasePath: string;
      };
      const dir = versionFolders.get(`${version.instance}\0${version.name}`) as string;
      const localized =
        locale === defaultLocale
          ? undefined
          : path.join(
              siteDir,
              'i18n',
              locale,
              docsPluginI18nFolder(instance.id),
              version.name === CURRENT_VERSION ? 'current' : `version-${version.name}`,
            );
      sets.push({
        kind: 'docs',
        instance: instance.id,
        version: version.name,
        locale,
        dir,
        ...(localized ? { localizedDir: localized } : {}),
        defaultLocale,
        routeBasePath: joinRoute(localePrefix, instance.routeBasePath, version.path),
        keyPrefix: siteKeyPrefix({ instance: instance.id, version: version.name, locale }),
      });
    }
    if (blogExists && blogDir) {
      const localized = locale === defaultLocale ? undefined : path.join(siteDir, 'i18n', locale, 'docusaurus-plugin-content-blog');
      sets.push({
        kind: 'blog',
        instance: BLOG_INSTANCE,
        locale,
        dir: blogDir,
        ...(localized ? { localizedDir: localized } : {}),
        defaultLocale,
        routeBasePath: joinRoute(localePrefix, (options.blog === false ? undefined : options.blog?.routeBasePath) ?? 'blog'),
        keyPrefix: siteKeyPrefix({ instance: BLOG_INSTANCE, locale }),
      });
    }
  }
  if (sets.length === 0) {
    throw new DocsChatError('site_invalid', `${siteDir} has no docs folder, versioned docs or blog.`, {
      hint: 'Pass the Docusaurus site root (with docs/, versioned_docs/ or blog/), or a docs folder with --docs DIR.',
    });
  }
  return { siteDir, defaultLocale, locales, instances: instances.map((instance) => instance.id), versions, sets, warnings };
}

export function summariseSite(layout: SiteLayout): SiteSummary {
  return { defaultLocale: layout.defaultLocale, locales: layout.locales, instances: layout.instances, versions: layout.versions };
}

/** The site summary an ingest kept in the index meta, or null for a plain docs index. */
export function readSiteSummary(extra: Record<string, unknown> | undefined): SiteSummary | null {
  const value = extra?.site as SiteSummary | undefined;
  if (!value || typeof value !== 'object' || !Array.isArray(value.versions) || !Array.isArray(value.locales)) return null;
  return value;
}
