/**
 * What the docs-chat plugin costs a reader's browser, in gzip bytes of JavaScript,
 * and what its static search index weighs.
 *
 *   node --import tsx eval/src/bench-bundle.ts [--json] [--page /docs/intro] [--page /]
 *
 * Method (issue 4, "Small"):
 * 1. Build docs-site twice from the same sources, with the plugin and without it
 *    (DOCS_CHAT_PLUGIN=off in docusaurus.config.ts), each from a fresh copy so the
 *    builds cannot share generated files.
 * 2. Serve each build on 127.0.0.1 and load the page in headless Chromium with an
 *    empty cache. Every script the page requests until it has hydrated and the
 *    network is idle is its initial load. Each script's size is measured on the
 *    file the build wrote, gzipped at level 9 (what a static host serves).
 * 3. Launcher = initial JS with the plugin − initial JS without it. Counting the
 *    difference of whole-page totals (rather than naming "the widget's chunk")
 *    includes everything the plugin changes: its Root wrapper, global data, the
 *    lazy-import glue and any change in how the bundler splits the site's code.
 *    It holds everything the plugin puts in the initial page: the chat launcher and the
 *    navbar's search button.
 * 4. Panel = the scripts the page fetches between the click on the launcher and the
 *    panel being open with the network idle. The browser asks only for what it does
 *    not have yet, so this is exactly the panel's cost beyond what the page already
 *    ships (React, and on docs pages the site's CodeBlock). On a page without code
 *    blocks (e.g. the home page) the panel also brings CodeBlock: measured too.
 * 5. Search = the scripts fetched, in a fresh page, between Ctrl+K and the search
 *    dialog showing results from the static index (the server is not running), with
 *    the index files counted apart: the dialog, the search client and the engine.
 * 6. Static search index = the index file docs-site's build wrote (fetched on the
 *    first search only), and the one of the redux corpus (86 pages, about 1,300
 *    sections; built from its markdown with the server's chunker, as `pnpm eval
 *    --engine static` does, since it has no site to build).
 * Targets: launcher (the plugin's initial JS) <= 15 KB gzip, panel <= 60 KB gzip,
 * docs-site index <= 150 KB gzip, redux index <= 500 KB gzip (1 KB = 1024 bytes).
 * CSS is reported beside the JS for information; the targets are about JavaScript.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Page, Response } from 'playwright-core';
import { launchChromium } from '../../docs-site/e2e/support/chromium.js';
import { resolveBuildFile, serveStaticSite } from '../../docs-site/e2e/support/static-server.js';
import { buildDocsSite, type SiteBuild } from '../../docs-site/e2e/support/site-build.js';
import { loadMarkdownCorpus } from './engines/markdown-corpus.js';

const LAUNCHER_BUDGET = 15 * 1024;
const PANEL_BUDGET = 60 * 1024;
const DOCS_SITE_INDEX_BUDGET = 150 * 1024;
const REDUX_INDEX_BUDGET = 500 * 1024;
const REDUX_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/corpora/redux');

export interface SearchFigures {
  /** gzip bytes of JavaScript fetched when the search opens and answers its first query. */
  dialogGzip: number;
  dialogRaw: number;
  dialogCssGzip: number;
  chunks: string[];
  docsSiteIndexGzip: number;
  docsSiteIndexRaw: number;
  reduxIndexGzip: number;
  reduxIndexRaw: number;
  reduxSections: number;
}

interface AssetSize {
  url: string;
  bytes: number;
  gzipBytes: number;
}

interface LoadMeasure {
  js: AssetSize[];
  css: AssetSize[];
}

export interface PageFigures {
  page: string;
  initialJsWithout: number;
  initialJsWith: number;
  /** gzip bytes the widget adds to the page's initial JavaScript. */
  launcherGzip: number;
  launcherRaw: number;
  launcherCssGzip: number;
  /** gzip bytes of JavaScript fetched when the panel opens. */
  panelGzip: number;
  panelRaw: number;
  panelCssGzip: number;
  panelChunks: string[];
}

function sizeOf(buildDir: string, url: string): AssetSize {
  const file = resolveBuildFile(buildDir, new URL(url).pathname);
  if (!file) throw new Error(`The page loaded ${url}, which is not a file of the build in ${buildDir}.`);
  const content = fs.readFileSync(file);
  return { url: new URL(url).pathname, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
}

/** Records the scripts and stylesheets the page receives from the site while `action` runs. */
async function recordAssets(page: Page, buildDir: string, origin: string, action: () => Promise<void>): Promise<LoadMeasure> {
  const seen = new Map<string, 'script' | 'stylesheet'>();
  const onResponse = (response: Response): void => {
    const type = response.request().resourceType();
    if ((type === 'script' || type === 'stylesheet') && response.url().startsWith(origin)) seen.set(response.url(), type);
  };
  page.on('response', onResponse);
  try {
    await action();
    await page.waitForLoadState('networkidle');
  } finally {
    page.off('response', onResponse);
  }
  const js: AssetSize[] = [];
  const css: AssetSize[] = [];
  for (const [url, type] of seen) (type === 'script' ? js : css).push(sizeOf(buildDir, url));
  return { js, css };
}

const total = (assets: AssetSize[], key: 'bytes' | 'gzipBytes'): number => assets.reduce((sum, asset) => sum + asset[key], 0);

async function measureInitial(build: SiteBuild, pagePath: string): Promise<LoadMeasure> {
  const site = await serveStaticSite(build.buildDir);
  const chromium = await launchChromium();
  try {
    const page = await chromium.context.newPage();
    return await recordAssets(page, build.buildDir, site.origin, async () => {
      await page.goto(`${site.origin}${pagePath}`);
      await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached' });
    });
  } finally {
    await chromium.close();
    await site.close();
  }
}

async function measureWithPanel(build: SiteBuild, pagePath: string): Promise<{ initial: LoadMeasure; panel: LoadMeasure }> {
  const site = await serveStaticSite(build.buildDir);
  const chromium = await launchChromium();
  try {
    const page = await chromium.context.newPage();
    const initial = await recordAssets(page, build.buildDir, site.origin, async () => {
      await page.goto(`${site.origin}${pagePath}`);
      await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached' });
    });
    const panel = await recordAssets(page, build.buildDir, site.origin, async () => {
      await page.getByRole('button', { name: /^Ask the docs/ }).click();
      await page.getByRole('dialog').getByRole('textbox').waitFor({ state: 'visible' });
    });
    return { initial, panel };
  } finally {
    await chromium.close();
    await site.close();
  }
}

/** The search dialog's first use in a fresh page (no chat server answers), and the index sizes. */
async function measureSearch(build: SiteBuild, pagePath: string): Promise<SearchFigures> {
  const site = await serveStaticSite(build.buildDir);
  const chromium = await launchChromium();
  try {
    const page = await chromium.context.newPage();
    await page.goto(`${site.origin}${pagePath}`);
    await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached' });
    await page.waitForLoadState('networkidle');
    const indexRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/docs-chat/')) indexRequests.push(new URL(request.url()).pathname);
    });
    const search = await recordAssets(page, build.buildDir, site.origin, async () => {
      await page.keyboard.press('Control+K');
      const box = page.getByRole('combobox', { name: 'Search the docs' });
      await box.waitFor({ state: 'visible' });
      await box.pressSequentially('vector store', { delay: 20 });
      await page.locator('[role="option"][data-kind="hit"]').first().waitFor({ state: 'visible', timeout: 15_000 });
    });
    const indexFile = indexRequests.find((url) => /search-index\.[0-9a-f]+\.json$/.test(url));
    if (!indexFile)
      throw new Error(`The search did not fetch the static index (it fetched ${indexRequests.join(', ') || 'nothing'} under docs-chat/).`);
    const docsSiteIndex = sizeOf(build.buildDir, `${site.origin}${indexFile}`);
    const redux = JSON.stringify((await loadMarkdownCorpus(REDUX_DIR)).index);
    return {
      dialogGzip: total(search.js, 'gzipBytes'),
      dialogRaw: total(search.js, 'bytes'),
      dialogCssGzip: total(search.css, 'gzipBytes'),
      chunks: search.js.map((asset) => `${asset.url} (${(asset.gzipBytes / 1024).toFixed(1)} KB gzip)`),
      docsSiteIndexGzip: docsSiteIndex.gzipBytes,
      docsSiteIndexRaw: docsSiteIndex.bytes,
      reduxIndexGzip: gzipSync(redux, { level: 9 }).length,
      reduxIndexRaw: Buffer.byteLength(redux),
      reduxSections: (JSON.parse(redux) as { sections: unknown[] }).sections.length,
    };
  } finally {
    await chromium.close();
    await site.close();
  }
}

export async function benchBundle(pages: string[]): Promise<{ pages: PageFigures[]; search: SearchFigures }> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-chat-bench-bundle-'));
  try {
    // The server URL is never called: the benchmark opens the panel but asks nothing.
    const serverUrl = 'http://127.0.0.1:8000';
    const without = await buildDocsSite({ workDir: path.join(workDir, 'without'), serverUrl, withPlugin: false });
    const withPlugin = await buildDocsSite({ workDir: path.join(workDir, 'with'), serverUrl, withPlugin: true });
    const figures: PageFigures[] = [];
    for (const pagePath of pages) {
      const base = await measureInitial(without, pagePath);
      const { initial, panel } = await measureWithPanel(withPlugin, pagePath);
      figures.push({
        page: pagePath,
        initialJsWithout: total(base.js, 'gzipBytes'),
        initialJsWith: total(initial.js, 'gzipBytes'),
        launcherGzip: total(initial.js, 'gzipBytes') - total(base.js, 'gzipBytes'),
        launcherRaw: total(initial.js, 'bytes') - total(base.js, 'bytes'),
        launcherCssGzip: total(initial.css, 'gzipBytes') - total(base.css, 'gzipBytes'),
        panelGzip: total(panel.js, 'gzipBytes'),
        panelRaw: total(panel.js, 'bytes'),
        panelCssGzip: total(panel.css, 'gzipBytes'),
        panelChunks: panel.js.map((asset) => `${asset.url} (${(asset.gzipBytes / 1024).toFixed(1)} KB gzip)`),
      });
    }
    return { pages: figures, search: await measureSearch(withPlugin, pages[0] ?? '/docs/intro') };
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

function printTable(figures: PageFigures[], search: SearchFigures): void {
  const rows = [
    [
      'page',
      'initial JS without',
      'initial JS with',
      'plugin initial JS (launcher + search button)',
      'budget',
      'panel (JS, on open)',
      'budget',
      'launcher CSS',
      'panel CSS',
    ],
  ];
  for (const figure of figures) {
    rows.push([
      figure.page,
      kb(figure.initialJsWithout),
      kb(figure.initialJsWith),
      kb(figure.launcherGzip),
      figure.launcherGzip <= LAUNCHER_BUDGET ? '<= 15 KB ok' : 'OVER 15 KB',
      kb(figure.panelGzip),
      figure.panelGzip <= PANEL_BUDGET ? '<= 60 KB ok' : 'OVER 60 KB',
      kb(figure.launcherCssGzip),
      kb(figure.panelCssGzip),
    ]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  for (const row of rows) process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}\n`);
  process.stdout.write('\nAll sizes gzip level 9 of the built files (1 KB = 1024 bytes).\n');
  for (const figure of figures) process.stdout.write(`Panel chunks on ${figure.page}: ${figure.panelChunks.join(', ') || 'none'}\n`);
  process.stdout.write(
    `\nSearch dialog on first use (JS, fetched on Ctrl+K and the first results): ${kb(search.dialogGzip)} gzip (${kb(search.dialogRaw)} raw), CSS ${kb(search.dialogCssGzip)}; chunks: ${search.chunks.join(', ') || 'none'}\n`,
  );
  process.stdout.write(
    `Static search index (fetched on the first search only): docs-site ${kb(search.docsSiteIndexGzip)} gzip (${kb(search.docsSiteIndexRaw)} raw), budget 150 KB ${search.docsSiteIndexGzip <= DOCS_SITE_INDEX_BUDGET ? 'ok' : 'OVER'}; ` +
      `redux ${kb(search.reduxIndexGzip)} gzip (${kb(search.reduxIndexRaw)} raw, ${search.reduxSections} sections), budget 500 KB ${search.reduxIndexGzip <= REDUX_INDEX_BUDGET ? 'ok' : 'OVER'}\n`,
  );
}

async function main(argv: string[]): Promise<number> {
  const pages: string[] = [];
  let json = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--json') json = true;
    else if (argument === '--page' && argv[index + 1]) pages.push(argv[++index] as string);
    else {
      process.stderr.write(
        `bench-bundle: unknown argument ${argument}. Usage: node --import tsx eval/src/bench-bundle.ts [--json] [--page /docs/intro]...\n`,
      );
      return 2;
    }
  }
  const figures = await benchBundle(pages.length > 0 ? pages : ['/docs/intro', '/']);
  if (json) {
    const budgets = {
      launcherGzip: LAUNCHER_BUDGET,
      panelGzip: PANEL_BUDGET,
      docsSiteIndexGzip: DOCS_SITE_INDEX_BUDGET,
      reduxIndexGzip: REDUX_INDEX_BUDGET,
    };
    process.stdout.write(`${JSON.stringify({ budgets, ...figures }, null, 2)}\n`);
  } else printTable(figures.pages, figures.search);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench-bundle: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
