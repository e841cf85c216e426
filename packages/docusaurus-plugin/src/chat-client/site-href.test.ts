import { describe, expect, it } from '@jest/globals';
import { toSiteHref } from './site-href.js';

// jsdom's page is http://localhost/: a link is internal only when the browser would resolve it to that origin.
describe('toSiteHref', () => {
  it('keeps site paths, anchors and same-origin URLs internal, as router paths', () => {
    expect(toSiteHref('/docs/guides/ingest#re-runs')).toEqual({ href: '/docs/guides/ingest#re-runs', internal: true });
    expect(toSiteHref('#top')).toEqual({ href: '#top', internal: true });
    expect(toSiteHref('http://localhost/docs/intro?x=1#a')).toEqual({ href: '/docs/intro?x=1#a', internal: true });
  });

  it('treats another site as external', () => {
    expect(toSiteHref('https://example.com/docs')).toEqual({ href: 'https://example.com/docs', internal: false });
  });

  it.each([
    ['a backslash after the slash', '/\\evil.example'],
    ['two backslashes', '\\\\evil.example/path'],
    ['a protocol-relative URL', '//evil.example/page'],
    ['a slash and a backslash', '/\\/evil.example'],
    ['a tab the URL parser drops', '/\t/evil.example'],
    ['a line break the URL parser drops', '/\n/evil.example'],
  ])('never takes %s for an internal link: it resolves to another host', (_name, href) => {
    const target = toSiteHref(href);
    expect(target.internal).toBe(false);
    expect(new URL(target.href, window.location.href).host).toBe('evil.example');
  });

  it('classifies a backslash link as external while rendering on the server too (no window)', () => {
    const saved = globalThis.window;
    // @ts-expect-error -- removing the DOM window, as during Docusaurus' server-side rendering
    delete globalThis.window;
    try {
      expect(toSiteHref('/\\evil.example').internal).toBe(false);
      expect(toSiteHref('//evil.example').internal).toBe(false);
      expect(toSiteHref('/docs/intro')).toEqual({ href: '/docs/intro', internal: true });
    } finally {
      globalThis.window = saved;
    }
  });
});
