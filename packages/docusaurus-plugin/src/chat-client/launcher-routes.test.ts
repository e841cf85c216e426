import { describe, expect, it } from '@jest/globals';
import { compileRoutePattern } from '../options.js';
import { matchesRoutePatterns, normalizeRoute, pathWithinSite } from './launcher-routes.js';

/** Whether the launcher is hidden on a page, as the widget decides it from the option's globs. */
function hiddenOn(pathname: string, patterns: string[], baseUrl = '/'): boolean {
  return matchesRoutePatterns(pathWithinSite(pathname, baseUrl), patterns.map(compileRoutePattern));
}

describe('pages where the launcher is hidden', () => {
  it('matches "/" to the home page only', () => {
    expect(hiddenOn('/', ['/'])).toBe(true);
    expect(hiddenOn('/docs/intro', ['/'])).toBe(false);
  });

  it('matches "/blog/**" to the blog index and every post, and nothing that merely starts alike', () => {
    for (const page of ['/blog', '/blog/', '/blog/2026/11/welcome', '/blog/tags/release/']) expect(hiddenOn(page, ['/blog/**'])).toBe(true);
    for (const page of ['/blogroll', '/docs/blog', '/']) expect(hiddenOn(page, ['/blog/**'])).toBe(false);
  });

  it('lets "*" stand for one path segment, versions with dots included', () => {
    expect(hiddenOn('/docs/1.2/changelog', ['/docs/*/changelog'])).toBe(true);
    expect(hiddenOn('/docs/next/guides/changelog', ['/docs/*/changelog'])).toBe(false);
  });

  it('reads patterns under the base URL, so one pattern serves every locale of the site', () => {
    expect(hiddenOn('/acme/blog/post', ['/blog/**'], '/acme/')).toBe(true);
    expect(hiddenOn('/acme/', ['/'], '/acme/')).toBe(true);
    expect(hiddenOn('/acme', ['/'], '/acme/')).toBe(true);
    expect(hiddenOn('/fr/blog/post', ['/blog/**'], '/fr/')).toBe(true);
    expect(hiddenOn('/fr/docs/intro', ['/blog/**'], '/fr/')).toBe(false);
  });

  it('treats a trailing slash, a doubled slash or an escaped letter as the same page', () => {
    expect(hiddenOn('/docs/intro/', ['/docs/intro'])).toBe(true);
    expect(hiddenOn('/docs//intro', ['/docs/intro/'])).toBe(true);
    expect(hiddenOn('/docs/caf%C3%A9', ['/docs/café'])).toBe(true);
    // A malformed escape is matched as it came rather than throwing in the reader's browser.
    expect(hiddenOn('/docs/%E0%A4%A', ['/docs/**'])).toBe(true);
  });

  it('hides nothing without patterns, and skips a pattern the browser cannot compile', () => {
    expect(hiddenOn('/docs/intro', [])).toBe(false);
    expect(matchesRoutePatterns('/docs/intro', ['(unclosed', compileRoutePattern('/docs/**')])).toBe(true);
    expect(matchesRoutePatterns('/docs/intro', ['(unclosed'])).toBe(false);
  });

  it('normalises routes the same way for paths and patterns', () => {
    expect(normalizeRoute('/')).toBe('/');
    expect(normalizeRoute('//')).toBe('/');
    expect(normalizeRoute('/a//b/')).toBe('/a/b');
  });
});
