/**
 * The docs version and locale the reader is on, sent with each question and
 * search so that answers cite the pages of that version in that language.
 *
 * The active docs instance and version are found as
 * @docusaurus/plugin-content-docs' client hook `useActivePluginAndVersion`
 * finds them (docsClientUtils.js: getActivePlugin, getActiveVersion), from the
 * same global data the docs plugin publishes. Reading the global data through
 * @docusaurus/useGlobalData keeps the widget free of a second copy of the docs
 * plugin (it would pull its own @docusaurus/core into a site's dependencies).
 */

/** What the docs plugin publishes per instance (`useGlobalData()['docusaurus-plugin-content-docs'][pluginId]`), as far as the widget reads it. */
export interface DocsGlobalData {
  path: string;
  versions: { name: string; path: string; isLast?: boolean }[];
}

export interface ReaderScope {
  /** Docs version name (`current`, `2.0`); absent outside the docs. */
  version?: string;
  /** Docs plugin id of that version. */
  docsInstance?: string;
  /** `i18n.currentLocale`. */
  locale?: string;
}

/** Like react-router's matchPath(pathname, { path, exact: false, strict: false }) for a plain path. */
function pathMatches(pathname: string, base: string): boolean {
  const trimmed = base.replace(/\/+$/, '');
  if (trimmed === '') return true;
  return pathname === trimmed || pathname.startsWith(`${trimmed}/`);
}

function isDocsGlobalData(value: unknown): value is DocsGlobalData {
  if (typeof value !== 'object' || value === null) return false;
  const data = value as Partial<DocsGlobalData>;
  return typeof data.path === 'string' && Array.isArray(data.versions);
}

/** The docs instance and version a page belongs to, or an empty scope outside the docs. */
export function activeDocsVersion(
  allDocsData: Record<string, unknown> | undefined,
  pathname: string,
): Pick<ReaderScope, 'version' | 'docsInstance'> {
  if (!allDocsData) return {};
  // Longest path first, so that /docs/community is tried before /docs.
  const instances = Object.entries(allDocsData)
    .filter((entry): entry is [string, DocsGlobalData] => isDocsGlobalData(entry[1]))
    .sort((a, b) => b[1].path.localeCompare(a[1].path));
  const active = instances.find(([, data]) => pathMatches(pathname, data.path));
  if (!active) return {};
  const [pluginId, data] = active;
  // A version whose path holds another's is tried after it: /docs (the last version) matches /docs/next/... too.
  const versions = [...data.versions].sort((a, b) => {
    if (a.path === b.path) return 0;
    if (a.path.includes(b.path)) return -1;
    if (b.path.includes(a.path)) return 1;
    return 0;
  });
  const version = versions.find((candidate) => pathMatches(pathname, candidate.path));
  return version ? { version: version.name, docsInstance: pluginId } : {};
}

/** The scope fields of a `POST /chat` body. */
export function scopeRequestFields(scope: ReaderScope | undefined): { version?: string; docs_instance?: string; locale?: string } {
  if (!scope) return {};
  return {
    ...(scope.version !== undefined ? { version: scope.version } : {}),
    ...(scope.docsInstance !== undefined ? { docs_instance: scope.docsInstance } : {}),
    ...(scope.locale !== undefined ? { locale: scope.locale } : {}),
  };
}

/** The scope parameters of a `GET /search` query string (`&version=…&locale=…`), empty without a scope. */
export function scopeQueryString(scope: ReaderScope | undefined): string {
  return Object.entries(scopeRequestFields(scope))
    .map(([key, value]) => `&${key}=${encodeURIComponent(value)}`)
    .join('');
}
