import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSiteLayout, scopeOfFileKey } from './site-layout.js';
import { computeBlogRoute } from '../markdown/docusaurus-routes.js';
import { isDocsChatError } from '../errors.js';

let siteDir: string;

function write(file: string, text = '# Page\n\nBody.\n'): void {
  const full = path.join(siteDir, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, text);
}

beforeEach(() => {
  siteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-layout-'));
  write('docs/intro.md');
  write('versioned_docs/version-2.0/intro.md');
  write('versioned_docs/version-1.0/intro.md');
  write('versioned_sidebars/version-2.0-sidebars.json', '{}');
  write('versioned_sidebars/version-1.0-sidebars.json', '{}');
  write('versions.json', '["2.0", "1.0"]');
  write('i18n/fr/docusaurus-plugin-content-docs/current/intro.md');
  write('blog/2024-01-02-hello.md');
});

afterEach(() => fs.rmSync(siteDir, { recursive: true, force: true }));

async function errorOf(promise: Promise<unknown>): Promise<{ code: string; message: string; hint: string | undefined }> {
  try {
    await promise;
  } catch (error) {
    if (isDocsChatError(error)) return { code: error.code, message: error.message, hint: error.hint };
    throw error;
  }
  throw new Error('expected a DocsChatError');
}

function routes(layout: Awaited<ReturnType<typeof readSiteLayout>>): string[] {
  return layout.sets.map((set) => `${set.instance}:${set.version ?? ''}:${set.locale} ${set.routeBasePath}`);
}

test('routes the last version at the route base, the current docs at next, older versions by name, other locales under their prefix', async () => {
  const layout = await readSiteLayout({ siteDir });
  expect(layout.locales).toEqual(['en', 'fr']);
  expect(routes(layout)).toEqual([
    'default:current:en /docs/next',
    'default:2.0:en /docs',
    'default:1.0:en /docs/1.0',
    'blog::en /blog',
    'default:current:fr /fr/docs/next',
    'default:2.0:fr /fr/docs',
    'default:1.0:fr /fr/docs/1.0',
    'blog::fr /fr/blog',
  ]);
  expect(layout.sets[4]?.localizedDir).toBe(path.join(siteDir, 'i18n/fr/docusaurus-plugin-content-docs/current'));
  expect(scopeOfFileKey(`${layout.sets[2]?.keyPrefix}guides/a.md`)).toEqual({ instance: 'default', version: '1.0', locale: 'en' });
  expect(scopeOfFileKey('guides/a.md')).toBeNull();
});

test('honours lastVersion, onlyIncludeVersions and a version path, and finds other instances from their versioned folders', async () => {
  write('api/intro.md');
  write('api_versions.json', '["5"]');
  write('api_versioned_docs/version-5/intro.md');
  write('api_versioned_sidebars/version-5-sidebars.json', '{}');
  const layout = await readSiteLayout({
    siteDir,
    locales: ['en'],
    blog: false,
    instances: [
      { id: 'default', lastVersion: 'current', onlyIncludeVersions: ['current', '1.0'], versions: { '1.0': { path: 'legacy' } } },
    ],
  });
  expect(routes(layout)).toEqual(['default:current:en /docs', 'default:1.0:en /docs/legacy', 'api:current:en /api/next', 'api:5:en /api']);
});

test('refuses a versions.json that names a version without its folder, saying how to fix it', async () => {
  write('versions.json', '["3.0", "2.0", "1.0"]');
  const error = await errorOf(readSiteLayout({ siteDir }));
  expect(error.code).toBe('site_invalid');
  expect(error.message).toContain('versions.json lists version "3.0", but its docs folder versioned_docs/version-3.0/ does not exist');
  expect(error.hint).toContain('remove "3.0" from versions.json');
});

test('leaves out a locale folder without translated docs, and says so', async () => {
  fs.mkdirSync(path.join(siteDir, 'i18n', 'de', 'docusaurus-theme-classic'), { recursive: true });
  const layout = await readSiteLayout({ siteDir });
  expect(layout.locales).toEqual(['en', 'fr']);
  expect(layout.warnings).toEqual([expect.objectContaining({ file: 'i18n/de/', reason: expect.stringContaining('no translated docs') })]);
  // Listed explicitly, it is indexed with the default locale's text.
  const listed = await readSiteLayout({ siteDir, locales: ['en', 'de'] });
  expect(listed.locales).toEqual(['en', 'de']);
});

test('refuses two docs instances on one folder or one route, where the same doc id would appear twice', async () => {
  const sameFolder = await errorOf(readSiteLayout({ siteDir, instances: [{ id: 'copy', path: 'docs', routeBasePath: 'copy' }] }));
  expect(sameFolder.code).toBe('site_invalid');
  expect(sameFolder.message).toContain('"default" and "copy" both read');
  write('community/intro.md');
  const sameRoute = await errorOf(readSiteLayout({ siteDir, instances: [{ id: 'community', routeBasePath: 'docs' }] }));
  expect(sameRoute.message).toContain('"default" and "community" are both served at /docs');
  expect(sameRoute.hint).toContain('--instance community=FOLDER:ROUTE_BASE');
});

test('routes blog posts by their dated file names, folders and front matter slugs', () => {
  expect(computeBlogRoute({ file: '2024-01-02-hello.md', frontMatter: {}, routeBasePath: '/blog' })).toMatchObject({
    url: '/blog/2024/01/02/hello',
    date: '2024-01-02',
  });
  expect(computeBlogRoute({ file: '2024-05-02-second/index.mdx', frontMatter: {}, routeBasePath: '/fr/blog' }).url).toBe(
    '/fr/blog/2024/05/02/second',
  );
  expect(
    computeBlogRoute({ file: 'notes/roadmap.md', frontMatter: { slug: 'the-roadmap', date: '2024-06-10' }, routeBasePath: '/blog' }),
  ).toMatchObject({
    url: '/blog/the-roadmap',
    date: '2024-06-10',
  });
  expect(computeBlogRoute({ file: 'notes/roadmap.md', frontMatter: {}, routeBasePath: '/blog' })).toMatchObject({
    url: '/blog/notes/roadmap',
    date: null,
  });
});
