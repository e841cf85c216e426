import fs from 'node:fs';
import path from 'node:path';
import { createVectorStoreFromConfig, loadCoreConfig, readSiteLayout, runIngest } from '@docs-chat/core';
import type { ChunkPayload, IngestReport } from '@docs-chat/core';
import { runNode } from './support/child-process.js';
import { collectPageIds, type PageIds } from './support/html-ids.js';
import { e2eWorkDir, SITE_DIR } from './support/paths.js';
import { resolveBuildFile } from './support/static-server.js';

// Issue 13: a whole Docusaurus site (two versions, two locales, a second docs instance, a blog)
// ingested with `ingest --site`; every URL and anchor a citation can carry must exist in the
// real `docusaurus build` of that site.

const FIXTURE_DIR = path.join(SITE_DIR, 'e2e', 'fixtures', 'versioned-site');

let workDir: string;
let siteDir: string;
let buildDir: string;
let report: IngestReport;
let chunks: ChunkPayload[];
const pageIds = new Map<string, PageIds | null>();

function idsOf(urlPath: string): PageIds | null {
  if (!pageIds.has(urlPath)) {
    const file = resolveBuildFile(buildDir, urlPath);
    pageIds.set(urlPath, file && file.endsWith('.html') ? collectPageIds(fs.readFileSync(file, 'utf8')) : null);
  }
  return pageIds.get(urlPath) ?? null;
}

function splitUrl(url: string): { path: string; anchor: string | null } {
  const hash = url.indexOf('#');
  return hash === -1 ? { path: url, anchor: null } : { path: url.slice(0, hash), anchor: decodeURIComponent(url.slice(hash + 1)) };
}

const ENV = { EMBEDDING_PROVIDER: 'local' };

async function ingestSite(): Promise<IngestReport> {
  const config = loadCoreConfig({ ...ENV, DATA_DIR: path.join(workDir, 'site-data') }, workDir);
  const site = await readSiteLayout({ siteDir, instances: [{ id: 'community', path: 'community', routeBasePath: 'community' }] });
  return runIngest(config, { site });
}

async function indexedChunks(): Promise<ChunkPayload[]> {
  const store = createVectorStoreFromConfig(loadCoreConfig({ ...ENV, DATA_DIR: path.join(workDir, 'site-data') }, workDir));
  try {
    const payloads: ChunkPayload[] = [];
    for (const file of await store.listFiles()) payloads.push(...(await store.getByFile(file.file)));
    return payloads;
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(e2eWorkDir(), 'versioned-site-'));
  siteDir = path.join(workDir, 'site');
  buildDir = path.join(siteDir, 'build');
  fs.cpSync(FIXTURE_DIR, siteDir, { recursive: true });
  fs.symlinkSync(path.join(SITE_DIR, 'node_modules'), path.join(siteDir, 'node_modules'), 'dir');
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  await runNode(
    'docusaurus build of the versioned fixture site',
    [path.join(SITE_DIR, 'node_modules', '@docusaurus', 'core', 'bin', 'docusaurus.mjs'), 'build', '--out-dir', buildDir],
    {
      cwd: siteDir,
      env,
      logFile: path.join(workDir, 'build.log'),
      timeoutMs: 240_000,
    },
  );
  report = await ingestSite();
  chunks = await indexedChunks();
}, 360_000);

test('the ingest finds both versions, both locales, the second instance and the blog', () => {
  expect(report.files.failed).toEqual([]);
  expect(report.site?.locales).toEqual(['en', 'fr']);
  expect(report.site?.versions.map((version) => `${version.instance}:${version.name}:${version.path}`)).toEqual([
    'default:current:next',
    'default:1.0:',
    'community:current:',
  ]);
  const scopes = new Set(chunks.map((chunk) => `${chunk.instance}:${chunk.version ?? ''}:${chunk.locale}`));
  expect([...scopes].sort()).toEqual([
    'blog::en',
    'blog::fr',
    'community:current:en',
    'community:current:fr',
    'default:1.0:en',
    'default:1.0:fr',
    'default:current:en',
    'default:current:fr',
  ]);
});

test('every cited URL is a page of the build and every anchor a heading on it', () => {
  const missingPages: string[] = [];
  const missingAnchors: string[] = [];
  for (const chunk of chunks) {
    const { path: urlPath, anchor } = splitUrl(chunk.url);
    const ids = idsOf(urlPath);
    if (!ids) missingPages.push(`${chunk.url} (from ${chunk.file})`);
    else if (anchor !== null && !ids.headings.has(anchor)) missingAnchors.push(`${chunk.url} (from ${chunk.file})`);
  }
  expect(chunks.length).toBeGreaterThan(40);
  expect(chunks.filter((chunk) => chunk.anchor !== null).length).toBeGreaterThan(chunks.length / 3);
  expect({ missingPages: [...new Set(missingPages)], missingAnchors: [...new Set(missingAnchors)] }).toEqual({
    missingPages: [],
    missingAnchors: [],
  });
});

test('every docs and blog page of the build is cited by some chunk', () => {
  const cited = new Set(chunks.map((chunk) => splitUrl(chunk.url).path.replace(/\/$/, '')));
  const built: string[] = [];
  const walk = (dir: string, urlPath: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name), `${urlPath}/${entry.name}`);
      else if (entry.name === 'index.html') built.push(urlPath);
    }
  };
  walk(buildDir, '');
  // Pages of content: docs versions, the community instance and blog posts (not the blog's list, archive or tag pages).
  const contentPages = built.filter(
    (page) => /^(\/fr)?\/(docs|community)\//.test(page) || /^(\/fr)?\/blog\/(\d{4}\/|the-roadmap)/.test(page),
  );
  expect(contentPages.length).toBe(24);
  expect(contentPages.filter((page) => !cited.has(page))).toEqual([]);
});

test('versions, locales and the blog are routed as Docusaurus routes them, untranslated pages marked', () => {
  const byUrl = new Map(chunks.map((chunk) => [chunk.pageUrl, chunk]));
  expect(byUrl.get('/docs/intro')).toMatchObject({ version: '1.0', locale: 'en', title: 'Getting started with Widgetry 1' });
  expect(byUrl.get('/docs/next/intro')).toMatchObject({ version: 'current', locale: 'en' });
  expect(byUrl.get('/fr/docs/next/intro')).toMatchObject({ version: 'current', locale: 'fr', title: 'Bien démarrer avec Widgetry' });
  expect(byUrl.get('/fr/docs/next/intro')?.fallbackLocale).toBeUndefined();
  expect(byUrl.get('/fr/docs/legacy-scripts')).toMatchObject({
    version: '1.0',
    locale: 'fr',
    fallbackLocale: 'en',
    title: 'Legacy scripts',
  });
  expect(byUrl.get('/blog/2024/03/01/launch')).toMatchObject({ instance: 'blog', date: '2024-03-01' });
  expect(byUrl.get('/blog/the-roadmap')).toMatchObject({ instance: 'blog', date: '2024-06-10' });
  expect(byUrl.get('/community/rules')).toMatchObject({ instance: 'community', version: 'current' });
});

test('a re-run embeds nothing, and removing a version or a locale removes its chunks', async () => {
  const again = await ingestSite();
  expect(again.embedding.texts).toBe(0);
  expect(again.files.unchanged).toBe(again.files.total);

  fs.writeFileSync(path.join(siteDir, 'versions.json'), '[]\n');
  fs.rmSync(path.join(siteDir, 'versioned_docs'), { recursive: true });
  fs.rmSync(path.join(siteDir, 'i18n', 'fr'), { recursive: true });
  const smaller = await ingestSite();
  expect(smaller.files.deleted).toBeGreaterThan(0);
  const left = await indexedChunks();
  expect(left.some((chunk) => chunk.version === '1.0' || chunk.locale === 'fr')).toBe(false);
  // Without released versions the current docs move to the route base.
  expect(left.some((chunk) => chunk.pageUrl === '/docs/intro' && chunk.version === 'current')).toBe(true);
}, 120_000);
