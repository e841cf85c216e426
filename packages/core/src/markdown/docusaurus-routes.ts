/**
 * Doc ids and page URLs computed the way @docusaurus/plugin-content-docs 3.10
 * does (docs.js, slug.js, numberPrefix.js), so citations land on the real
 * page without a site build. Only the current docs version is modelled.
 */

export interface DocRouteInput {
  /** Path relative to the docs folder, forward slashes (e.g. `01-guides/02-setup.md`). */
  file: string;
  frontMatter: Record<string, unknown>;
  /** The docs plugin's `routeBasePath` (default `docs`; `/` serves docs at the site root). */
  routeBasePath?: string;
}

export interface DocRoute {
  /** `dir/baseId` with number prefixes stripped from folders, as Docusaurus ids docs. */
  docId: string;
  /** Front matter `id`, else the file name without extension and number prefix. */
  baseId: string;
  /** Page path without the site base URL (e.g. `/docs/guides/setup`). */
  url: string;
}

export const DEFAULT_ROUTE_BASE_PATH = 'docs';

// A leading `7.0-` or `2021-11-` is a version or a date, not an ordering prefix.
const VERSION_OR_DATE_PREFIX = /^\d+[-_.]\d+/;
const NUMBER_PREFIX = /^(\d+)\s*[-_.]+\s*([^-_.\s].*)$/;

/** `01-intro` → `intro`; `2021-11-notes` stays as it is. */
export function stripNumberPrefix(name: string): string {
  if (VERSION_OR_DATE_PREFIX.test(name)) return name;
  const match = NUMBER_PREFIX.exec(name);
  return match?.[2] ?? name;
}

function stripPathNumberPrefixes(path: string): string {
  return path.split('/').map(stripNumberPrefix).join('/');
}

function splitFile(file: string): { dirName: string; fileName: string; extension: string } {
  const normalized = file.replace(/\\/g, '/').replace(/^\.\//, '').replace(/^\/+/, '');
  const slash = normalized.lastIndexOf('/');
  const dirName = slash === -1 ? '.' : normalized.slice(0, slash);
  const base = slash === -1 ? normalized : normalized.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  // Like path.extname: a leading dot (".hidden") is not an extension.
  return dot > 0 ? { dirName, fileName: base.slice(0, dot), extension: base.slice(dot) } : { dirName, fileName: base, extension: '' };
}

/**
 * Category index docs (`index`, `README` or named like their folder, any case)
 * take their folder's URL instead of `/folder/index`. Docusaurus compares the
 * raw names, number prefixes included.
 */
export function isCategoryIndex(fileName: string, dirName: string): boolean {
  const lowerName = fileName.toLowerCase();
  const closestFolder = dirName.split('/').reverse()[0]?.toLowerCase();
  return lowerName === 'index' || lowerName === 'readme' || lowerName === closestFolder;
}

/** Resolves a relative URL path against a folder path, as browsers and resolve-pathname do for paths. */
function resolvePathname(to: string, from: string): string {
  if (to.startsWith('/')) return to;
  const fromParts = from.split('/');
  fromParts.pop(); // `from` ends with `/`, so this drops the empty last segment
  const parts = [...fromParts, ...to.split('/')];
  const resolved: string[] = [];
  const last = parts[parts.length - 1];
  const trailingSlash = last === '.' || last === '..' || last === '';
  for (const part of parts) {
    if (part === '.' || part === '') continue;
    if (part === '..') resolved.pop();
    else resolved.push(part);
  }
  return `/${resolved.join('/')}${trailingSlash && resolved.length > 0 ? '/' : ''}`;
}

/** Joins URL path pieces with single slashes; only the last piece may keep a trailing slash. */
function joinUrlPaths(pieces: string[]): string {
  const kept = pieces.filter((piece) => piece !== '');
  const joined = kept.map((piece, index) => (index < kept.length - 1 ? piece.replace(/\/+$/, '') : piece)).join('/');
  return joined.replace(/\/{2,}/g, '/').replace(/^(?!\/)/, '/');
}

export function computeDocRoute(input: DocRouteInput): DocRoute {
  const { dirName, fileName } = splitFile(input.file);
  const frontMatterId = typeof input.frontMatter.id === 'string' && input.frontMatter.id !== '' ? input.frontMatter.id : undefined;
  const frontMatterSlug = typeof input.frontMatter.slug === 'string' && input.frontMatter.slug !== '' ? input.frontMatter.slug : undefined;
  const parseNumberPrefixes = input.frontMatter.parse_number_prefixes !== false;

  const baseId = frontMatterId ?? (parseNumberPrefixes ? stripNumberPrefix(fileName) : fileName);
  const strippedDirName = dirName === '.' ? undefined : parseNumberPrefixes ? stripPathNumberPrefixes(dirName) : dirName;
  const docId = strippedDirName ? `${strippedDirName}/${baseId}` : baseId;

  const dirNameSlug = strippedDirName === undefined ? '/' : `/${strippedDirName.replace(/^\/+/, '')}/`.replace(/\/{2,}$/, '/');
  let slug: string;
  if (frontMatterSlug?.startsWith('/')) slug = frontMatterSlug;
  else if (frontMatterSlug === undefined && isCategoryIndex(fileName, dirName)) slug = dirNameSlug;
  else slug = resolvePathname(frontMatterSlug ?? baseId, dirNameSlug);

  const basePath = joinUrlPaths(['/', (input.routeBasePath ?? DEFAULT_ROUTE_BASE_PATH).trim()]);
  return { docId, baseId, url: joinUrlPaths([basePath, slug]) };
}

export interface BlogRouteInput {
  /** Path relative to the blog folder, forward slashes (e.g. `2024-03-01-launch.md`, `2024/03/01/launch/index.mdx`). */
  file: string;
  frontMatter: Record<string, unknown>;
  /** The blog plugin's `routeBasePath` (default `blog`), locale prefix included when there is one. */
  routeBasePath: string;
}

// As @docusaurus/plugin-content-blog 3.10 reads a post's date and slug from its path (blogUtils.js).
const BLOG_DATE_FILE = /^(?<folder>.*)(?<date>\d{4}[-/]\d{1,2}[-/]\d{1,2})[-/]?(?<text>.*?)(?:\/index)?.mdx?$/;

/** A blog post's id and URL: front matter `slug`, else `/YYYY/MM/DD/name` from a dated file name, else the path. */
export function computeBlogRoute(input: BlogRouteInput): DocRoute & { date: string | null } {
  const file = input.file.replace(/\\/g, '/').replace(/^\.\//, '');
  const match = BLOG_DATE_FILE.exec(file);
  let slug: string;
  let date: string | null = null;
  let text: string;
  if (match?.groups) {
    const { folder = '', text: name = '', date: dateText = '' } = match.groups;
    slug = `/${dateText.replace(/-/g, '/')}/${folder}${name}`;
    const parsed = new Date(`${dateText}Z`);
    date = Number.isNaN(parsed.getTime()) ? null : parsed.toISOString().slice(0, 10);
    text = name;
  } else {
    text = file.replace(/(?:\/index)?\.mdx?$/, '');
    slug = `/${text}`;
  }
  const frontMatterSlug = typeof input.frontMatter.slug === 'string' && input.frontMatter.slug !== '' ? input.frontMatter.slug : undefined;
  const finalSlug = frontMatterSlug ?? slug;
  const frontMatterDate = input.frontMatter.date;
  if (frontMatterDate instanceof Date) date = frontMatterDate.toISOString().slice(0, 10);
  else if (typeof frontMatterDate === 'string' && !Number.isNaN(new Date(frontMatterDate).getTime()))
    date = new Date(frontMatterDate).toISOString().slice(0, 10);
  return {
    docId: finalSlug,
    baseId: text.split('/').pop() ?? text,
    url: joinUrlPaths(['/', input.routeBasePath.trim(), finalSlug]),
    date,
  };
}
