/**
 * Source URLs come from the ingest: site paths ("/docs/x#h") or absolute URLs.
 * Same-site URLs become paths so `@docusaurus/Link` navigates with the router
 * instead of reloading the page.
 */
export function toSiteHref(url: string): { href: string; internal: boolean } {
  if (url.startsWith('/') && !url.startsWith('//')) return { href: url, internal: true };
  if (url.startsWith('#')) return { href: url, internal: true };
  if (typeof window !== 'undefined') {
    try {
      const parsed = new URL(url, window.location.href);
      if (parsed.origin === window.location.origin) return { href: `${parsed.pathname}${parsed.search}${parsed.hash}`, internal: true };
    } catch {
      return { href: url, internal: false };
    }
  }
  return { href: url, internal: false };
}
