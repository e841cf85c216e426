import { computeDocRoute, isCategoryIndex, stripNumberPrefix } from './docusaurus-routes.js';

// Every expected value below was produced by running @docusaurus/plugin-content-docs 3.10.2's own
// processDocMetadata on the same file names and front matter (scratch script outside the repo).
const cases: Array<[file: string, frontMatter: Record<string, unknown>, docId: string, docsUrl: string, rootUrl: string]> = [
  ['01-intro.md', {}, 'intro', '/docs/intro', '/intro'],
  ['2-guides/03-setup.md', {}, 'guides/setup', '/docs/guides/setup', '/guides/setup'],
  ['2-guides/README.md', {}, 'guides/README', '/docs/guides/', '/guides/'],
  ['2-guides/index.md', {}, 'guides/index', '/docs/guides/', '/guides/'],
  ['2021-11-notes.md', {}, '2021-11-notes', '/docs/2021-11-notes', '/2021-11-notes'],
  ['5-faq/5-faq.md', {}, 'faq/faq', '/docs/faq/', '/faq/'],
  ['api/Api.mdx', {}, 'api/Api', '/docs/api/', '/api/'],
  ['api/absolute.md', { slug: '/top/level' }, 'api/absolute', '/docs/top/level', '/top/level'],
  ['api/idslug.md', { id: 'my-id', slug: 'my-slug' }, 'api/my-id', '/docs/api/my-slug', '/api/my-slug'],
  ['api/nested/Nested.md', { id: 'custom' }, 'api/nested/custom', '/docs/api/nested/', '/api/nested/'],
  ['api/relative-slug.md', { slug: 'renamed' }, 'api/relative-slug', '/docs/api/renamed', '/api/renamed'],
  ['api/trailing.md', { slug: '/with/trailing/' }, 'api/trailing', '/docs/with/trailing/', '/with/trailing/'],
  ['api/up-slug.md', { slug: '../elsewhere/page' }, 'api/up-slug', '/docs/elsewhere/page', '/elsewhere/page'],
  ['api/withid.md', { id: 'other-id' }, 'api/other-id', '/docs/api/other-id', '/api/other-id'],
  ['guides/01-guides.md', {}, 'guides/guides', '/docs/guides/guides', '/guides/guides'],
  ['index.md', {}, 'index', '/docs/', '/'],
  ['no-prefix/10 - spaced.md', {}, 'no-prefix/spaced', '/docs/no-prefix/spaced', '/no-prefix/spaced'],
];

describe('computeDocRoute', () => {
  it.each(cases)('routes %s with front matter %j exactly as Docusaurus does', (file, frontMatter, docId, docsUrl, rootUrl) => {
    expect(computeDocRoute({ file, frontMatter })).toMatchObject({ docId, url: docsUrl });
    expect(computeDocRoute({ file, frontMatter, routeBasePath: '/' }).url).toBe(rootUrl);
  });

  it('serves docs under a custom route base path', () => {
    expect(computeDocRoute({ file: 'a/b.md', frontMatter: {}, routeBasePath: 'handbook' }).url).toBe('/handbook/a/b');
  });

  it('keeps dates and versions at the start of a name but strips ordering numbers', () => {
    expect(stripNumberPrefix('07-install')).toBe('install');
    expect(stripNumberPrefix('7.0-release')).toBe('7.0-release');
    expect(stripNumberPrefix('3_steps')).toBe('steps');
  });

  it('treats index, README and a file named like its folder as the folder page, in any case', () => {
    expect(isCategoryIndex('INDEX', 'x')).toBe(true);
    expect(isCategoryIndex('ReadMe', 'x')).toBe(true);
    expect(isCategoryIndex('Tools', 'guides/tools')).toBe(true);
    expect(isCategoryIndex('setup', 'guides')).toBe(false);
  });
});
