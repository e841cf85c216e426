import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadCoreConfig } from '../config.js';
import { openRetrieval, runIngest } from '../runtime.js';
import { readSiteLayout, type SiteOptions } from './site-layout.js';
import { isDocsChatError } from '../errors.js';

const SITE: Record<string, string> = {
  'versions.json': '["1.0"]',
  'versioned_sidebars/version-1.0-sidebars.json': '{}',
  'docs/intro.md': '# Launching\n\n## Countdown\n\nThe countdown is started with `launch --go` in version 2.\n',
  'docs/fuel.md': '# Fuel\n\n## Refuelling\n\nRefuel the tanks with the hydrazine pump.\n',
  'versioned_docs/version-1.0/intro.md': '# Launching\n\n## Countdown\n\nVersion 1.0 starts the countdown by turning the brass key.\n',
  'i18n/fr/docusaurus-plugin-content-docs/current/intro.md':
    '# Lancement\n\n## Compte à rebours\n\nLe compte à rebours démarre avec `launch --go`.\n',
  'blog/2024-02-03-first-flight.md':
    '---\ntitle: First flight\n---\n\nThe first flight went well.\n\n## Lessons\n\nCheck the valves twice.\n',
};

let workDir: string;
let siteDir: string;
let env: Record<string, string>;

async function write(files: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(siteDir, file)), { recursive: true });
    await fs.writeFile(path.join(siteDir, file), text);
  }
}

beforeEach(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-site-ingest-'));
  siteDir = path.join(workDir, 'site');
  await write(SITE);
  env = { DATA_DIR: path.join(workDir, 'data'), EMBEDDING_PROVIDER: 'local' };
});
afterEach(async () => {
  await fs.rm(workDir, { recursive: true, force: true });
});

async function ingestSite(options: Partial<SiteOptions> = {}) {
  return runIngest(loadCoreConfig(env), { site: await readSiteLayout({ siteDir, ...options }) });
}

async function search(question: string, scope: { version?: string; locale?: string }) {
  const retrieval = await openRetrieval(loadCoreConfig(env));
  try {
    return await retrieval.retriever.search(question, { k: 5, scope });
  } finally {
    await retrieval.close();
  }
}

test('re-embeds only the page that changed, and drops a removed locale', async () => {
  const first = await ingestSite();
  // en: 2 current + 1 old + 1 post; fr: the same pages, one of them translated.
  expect(first.files.total).toBe(8);
  const again = await ingestSite();
  expect(again.embedding.texts).toBe(0);
  await write({ 'docs/fuel.md': '# Fuel\n\n## Refuelling\n\nRefuel the tanks with the new methane pump.\n' });
  const changed = await ingestSite();
  // docs/fuel.md is untranslated, so its French page (the same text) changes with it; the cache embeds the text once.
  expect({ modified: changed.files.modified, unchanged: changed.files.unchanged }).toEqual({ modified: 2, unchanged: 6 });
  expect(changed.embedding.texts).toBe(1);
  await fs.rm(path.join(siteDir, 'i18n'), { recursive: true });
  const withoutFrench = await ingestSite();
  expect(withoutFrench.files.deleted).toBe(4);
  expect((await search('countdown', { locale: 'fr' })).hits.every((hit) => hit.chunk.locale === 'en')).toBe(true);
});

test('searches the asked version and locale, cites untranslated pages with their fallback', async () => {
  await ingestSite();
  const old = await search('how is the countdown started', { version: '1.0' });
  expect(old.hits[0]?.chunk).toMatchObject({ url: '/docs/intro#countdown', version: '1.0', locale: 'en' });
  const next = await search('comment démarre le compte à rebours', { version: 'current', locale: 'fr' });
  expect(next.hits[0]?.chunk).toMatchObject({ url: '/fr/docs/next/intro#compte-à-rebours', version: 'current', locale: 'fr' });
  const fuel = await search('refuel the tanks', { version: 'current', locale: 'fr' });
  expect(fuel.hits[0]?.chunk).toMatchObject({ url: '/fr/docs/next/fuel#refuelling', fallbackLocale: 'en' });
  const blog = await search('valves first flight lessons', { version: '1.0' });
  expect(blog.hits[0]?.chunk).toMatchObject({ url: '/blog/2024/02/03/first-flight#lessons', instance: 'blog', date: '2024-02-03' });
});

test('refuses a single-folder ingest over a whole-site index, which would drop its versions', async () => {
  await ingestSite();
  let error: unknown;
  try {
    await runIngest(loadCoreConfig(env), { docsDir: path.join(siteDir, 'docs') });
  } catch (caught) {
    error = caught;
  }
  expect(isDocsChatError(error) && error.code === 'config_invalid' && error.hint).toBe(
    'Run the ingest with --site SITE_DIR again, or add --rebuild to replace the site index with this folder.',
  );
  const rebuilt = await runIngest(loadCoreConfig(env), { docsDir: path.join(siteDir, 'docs'), rebuild: true });
  expect(rebuilt.files.total).toBe(2);
});

test('reports the second of two pages on one URL as failed, naming both', async () => {
  await write({ 'docs/launch.md': '---\nslug: /intro\n---\n\n# Launch\n\nAnother page claiming the same URL.\n' });
  const report = await ingestSite({ locales: ['en'], blog: false });
  expect(report.files.failed).toEqual([
    {
      file: 'site:default:current:en/launch.md',
      reason: expect.stringContaining('has the same URL /docs/next/intro as site:default:current:en/intro.md'),
    },
  ]);
});
