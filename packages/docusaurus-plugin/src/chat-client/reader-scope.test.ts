import { describe, expect, it } from '@jest/globals';
import { activeDocsVersion, scopeQueryString, scopeRequestFields } from './reader-scope.js';

// The global data the docs plugin publishes for a French page of a site with versions 2.0 (last), 1.0 and
// the current docs, plus a community instance (shaped as Docusaurus 3.10 writes it, trimmed).
const docs = {
  default: {
    path: '/fr/docs',
    versions: [
      { name: 'current', label: 'Next', isLast: false, path: '/fr/docs/next' },
      { name: '2.0', label: '2.0', isLast: true, path: '/fr/docs' },
      { name: '1.0', label: '1.0', isLast: false, path: '/fr/docs/1.0' },
    ],
  },
  community: { path: '/fr/docs-community', versions: [{ name: 'current', label: 'Next', isLast: true, path: '/fr/docs-community' }] },
};

describe('activeDocsVersion', () => {
  it('finds the version of a page as the docs plugin does, the last version matched last', () => {
    expect(activeDocsVersion(docs, '/fr/docs/next/guides/setup')).toEqual({ version: 'current', docsInstance: 'default' });
    expect(activeDocsVersion(docs, '/fr/docs/1.0/intro')).toEqual({ version: '1.0', docsInstance: 'default' });
    expect(activeDocsVersion(docs, '/fr/docs/intro')).toEqual({ version: '2.0', docsInstance: 'default' });
    expect(activeDocsVersion(docs, '/fr/docs')).toEqual({ version: '2.0', docsInstance: 'default' });
  });

  it('tells instances apart by their route, not by a shared start of name', () => {
    expect(activeDocsVersion(docs, '/fr/docs-community/rules')).toEqual({ version: 'current', docsInstance: 'community' });
    expect(activeDocsVersion(docs, '/fr/docsearch')).toEqual({});
  });

  it('gives no version outside the docs or without the docs plugin', () => {
    expect(activeDocsVersion(docs, '/fr/blog/2024/03/01/launch')).toEqual({});
    expect(activeDocsVersion(undefined, '/docs/intro')).toEqual({});
  });
});

describe('the scope on the wire', () => {
  it('becomes body fields for /chat and query parameters for /search', () => {
    const scope = { version: '1.0', docsInstance: 'default', locale: 'pt-BR' };
    expect(scopeRequestFields(scope)).toEqual({ version: '1.0', docs_instance: 'default', locale: 'pt-BR' });
    expect(scopeQueryString(scope)).toBe('&version=1.0&docs_instance=default&locale=pt-BR');
    expect(scopeQueryString({ locale: 'en' })).toBe('&locale=en');
    expect(scopeQueryString(undefined)).toBe('');
  });
});
