/**
 * Where a link in an answer or a source list goes. Source URLs come from the
 * ingest (site paths like "/docs/x#h", or absolute URLs); links in answers come
 * from the model, so they are untrusted. A link is internal (followed with the
 * router, in the same tab) only when it stays on this site:
 * - in the browser, the URL parser decides: `/\evil.example`, `//evil.example`
 *   and `/<tab>/evil.example` all resolve to another host, however they look;
 * - while Docusaurus renders on the server (no window), only a plain path or
 *   anchor without backslashes or control characters counts as internal.
 * Everything else is external: it opens in a new tab, at the URL the browser
 * itself resolves it to.
 */
// eslint-disable-next-line no-control-regex -- control characters are what the pattern refuses
const PLAIN_PATH_OR_ANCHOR = /^(?:\/(?![/\\])|#)[^\\\u0000-\u001f\u007f]*$/;

interface PageLocation {
  href: string;
  origin: string;
}

function pageLocation(): PageLocation | null {
  // Read through globalThis: this module also runs in Node (server rendering, the fault suite).
  const location = (globalThis as { window?: { location?: PageLocation } }).window?.location;
  return location ?? null;
}

export function toSiteHref(url: string): { href: string; internal: boolean } {
  const location = pageLocation();
  if (!location) return { href: url, internal: PLAIN_PATH_OR_ANCHOR.test(url) };
  if (url.startsWith('#') && PLAIN_PATH_OR_ANCHOR.test(url)) return { href: url, internal: true };
  let parsed: URL;
  try {
    parsed = new URL(url, location.href);
  } catch {
    return { href: url, internal: false };
  }
  if (parsed.origin === location.origin) return { href: `${parsed.pathname}${parsed.search}${parsed.hash}`, internal: true };
  return { href: parsed.href, internal: false };
}
