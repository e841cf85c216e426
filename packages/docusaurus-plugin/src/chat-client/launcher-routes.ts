/**
 * Where the launcher stays out of sight (the `hideLauncherOn` option). The site owner's glob
 * patterns are compiled to regular expressions at build (options.ts, with picomatch), so the
 * browser only tests a path against them and ships no glob library.
 */

/**
 * A page's path as the owner writes it in a pattern: under the site's base URL (so the same
 * pattern serves every locale, whose pages sit under `/fr/` and the like), decoded, without a
 * trailing slash (`/docs/intro/` and `/docs/intro` are one page) and `/` for the home page.
 */
export function pathWithinSite(pathname: string, baseUrl: string): string {
  let decoded = pathname;
  try {
    decoded = decodeURI(pathname);
  } catch {
    // A malformed escape: match the path as it came.
  }
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  let path = decoded;
  if (path.startsWith(base)) path = `/${path.slice(base.length)}`;
  else if (`${path}/` === base) path = '/';
  return normalizeRoute(path);
}

/** `/blog/` → `/blog`; `/` stays; repeated slashes collapse. Used for both paths and patterns. */
export function normalizeRoute(route: string): string {
  const collapsed = route.replace(/\/{2,}/g, '/');
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

/** Whether the path matches one of the compiled patterns (regular expression sources). */
export function matchesRoutePatterns(path: string, patternSources: readonly string[]): boolean {
  return patternSources.some((source) => {
    try {
      return new RegExp(source).test(path);
    } catch {
      // Compiled at build by the plugin; a hand-edited global data file is the only way here.
      return false;
    }
  });
}
