import fs from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { startChatServer, type RunningChatServer } from './support/chat-server.js';
import { findChromium, launchChromium, type LaunchedChromium } from './support/chromium.js';
import { findFreePort } from './support/free-port.js';
import { E2E_ARTIFACTS_DIR } from './support/paths.js';
import { readSharedBuild } from './support/shared-build.js';
import { buildDocsSite, type SiteBuild } from './support/site-build.js';
import { serveStaticSite, type StaticSite } from './support/static-server.js';
import { landing, SearchPage, waitForAnchor } from './support/search-page.js';
import { auditAccessibility, screenshot, WidgetPage } from './support/widget-page.js';

// The navbar search and the chat panel's search in the built docs-site, in headless Chromium,
// on builds of their own: the site under the base URL /handbook/ with trailingSlash true and
// false. The chat server URL baked into them points at a port where nothing listens (the
// server is stopped), except in the one test that starts the server there to check that
// search asks it first.

const SLOW = 180_000;
const BASE_URL = '/handbook/';

interface Variant {
  trailingSlash: boolean;
  build: SiteBuild;
  site: StaticSite;
  siteUrl: string;
}

let chromium: LaunchedChromium;
let serverPort: number;
const variants = new Map<boolean, Variant>();
let page: Page;
let pageErrors: string[];
let requests: string[];

beforeAll(async () => {
  findChromium();
  const shared = readSharedBuild();
  serverPort = await findFreePort();
  for (const trailingSlash of [true, false]) {
    const build = await buildDocsSite({
      workDir: path.join(shared.workDir, `site-handbook-trailing-slash-${trailingSlash}`),
      serverUrl: `http://127.0.0.1:${serverPort}`,
      baseUrl: BASE_URL,
      trailingSlash,
    });
    const site = await serveStaticSite(build.buildDir, 0, BASE_URL);
    variants.set(trailingSlash, { trailingSlash, build, site, siteUrl: `${site.origin}${BASE_URL}` });
  }
  chromium = await launchChromium();
}, SLOW);

afterAll(async () => {
  await chromium?.close();
  for (const variant of variants.values()) await variant.site.close();
});

beforeEach(async () => {
  page = await chromium.context.newPage();
  pageErrors = [];
  requests = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (request: Request) => requests.push(new URL(request.url()).pathname));
});

afterEach(async () => {
  await page?.close();
});

function variant(trailingSlash: boolean): Variant {
  const found = variants.get(trailingSlash);
  if (!found) throw new Error(`No build with trailingSlash ${trailingSlash}`);
  return found;
}

async function openSearchPage(trailingSlash: boolean): Promise<SearchPage> {
  const search = new SearchPage(page, variant(trailingSlash).siteUrl);
  await search.open(`docs/intro${trailingSlash ? '/' : ''}`);
  await page.evaluate(() => localStorage.clear());
  return search;
}

describe.each([true, false])('with the chat server stopped, on a site under /handbook/ with trailingSlash %s', (trailingSlash) => {
  test(
    'typing in the navbar search finds sections in the static index, fetched on the first search only, and Enter lands on the heading',
    async () => {
      const search = await openSearchPage(trailingSlash);
      expect(requests.filter((url) => url.includes('/docs-chat/'))).toEqual([]);

      await search.openWithShortcut();
      await search.type('qdrant collection');
      await expect(search.source()).resolves.toBe('static');
      const first = search.results().first();
      const groupLabel = await first.locator('xpath=..').getAttribute('aria-labelledby');
      expect(groupLabel).toBeTruthy();
      await expect(first.locator('mark').count()).resolves.toBeGreaterThan(0);
      await search.type(' name');
      expect(requests.filter((url) => url.includes('/docs-chat/')).map((url) => url.replace(/\.[0-9a-f]{12}\./, '.HASH.'))).toEqual([
        `${BASE_URL}docs-chat/search-manifest.json`,
        `${BASE_URL}docs-chat/search-index.HASH.json`,
      ]);
      await screenshot(page, `search-static-trailing-slash-${trailingSlash}`);

      await page.keyboard.press('Enter');
      await waitForAnchor(page);
      const landed = await landing(page);
      expect(landed.pathname.startsWith(`${BASE_URL}docs/`)).toBe(true);
      expect(landed.pathname.endsWith('/')).toBe(trailingSlash);
      expect(landed.tag).toMatch(/^h[2-6]$/);
      expect(landed.onScreen).toBe(true);
      await expect(search.dialog().isVisible()).resolves.toBe(false);
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test(
    'a result clicked with the mouse lands on its anchor too',
    async () => {
      const search = await openSearchPage(trailingSlash);
      await search.button().click();
      await search.type('rebuild the index embedder');
      const second = search.results().nth(1);
      await second.click();
      await waitForAnchor(page);
      const landed = await landing(page);
      expect(landed.pathname.endsWith('/')).toBe(trailingSlash);
      expect(landed.onScreen).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );
});

describe('on the site with trailingSlash true', () => {
  describe.each(['light', 'dark'] as const)('axe-core audit in %s mode', (colorScheme) => {
    test(
      `finds zero WCAG 2.1 A/AA violations with the search open, showing results and with the active row moved (${colorScheme})`,
      async () => {
        await page.emulateMedia({ colorScheme });
        const search = await openSearchPage(true);
        await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe(colorScheme);
        await expect(auditAccessibility(page)).resolves.toEqual([]);
        await search.openWithShortcut();
        await search.type('selection mode');
        await page.keyboard.press('ArrowDown');
        await screenshot(page, `search-open-${colorScheme}`);
        await expect(auditAccessibility(page)).resolves.toEqual([]);
        await page.keyboard.press('Escape');
        await expect(page.evaluate(() => document.activeElement?.classList.contains('docs-chat-search-button'))).resolves.toBe(true);
      },
      SLOW,
    );
  });

  test(
    'bad input: one letter, stop words, 4,000 characters, HTML, Cyrillic and Chinese keep the search working and the page free of errors',
    async () => {
      const search = await openSearchPage(true);
      await page.keyboard.press('/');
      await search.box().waitFor({ state: 'visible' });
      await search.box().fill('q');
      await search.dialog().locator('p.docs-chat-search-status', { hasText: 'Keep typing…' }).waitFor();
      await search.box().fill('how do I do it');
      await search.dialog().locator('p.docs-chat-search-status', { hasText: 'No results for “how do I do it”.' }).waitFor();
      await search.box().fill(`widget ${'x'.repeat(4000)}`);
      await search.dialog().locator('[role="option"][data-kind="ask"]').waitFor();
      await search.box().fill('<img src=x onerror="window.__searchHacked = 1"><b>bold</b> widget');
      await search.results().first().waitFor();
      await expect(search.dialog().locator('img, b').count()).resolves.toBe(0);
      await expect(page.evaluate(() => (window as unknown as { __searchHacked?: number }).__searchHacked)).resolves.toBeUndefined();
      for (const query of ['как настроить сервер', '搜索文档', 'conﬁguration']) {
        await search.box().fill(query);
        await page.waitForTimeout(300);
      }
      await search.box().fill('');
      await search.type('selection');
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test.each([
    ['missing', 404, '<!doctype html><title>Not found</title>'],
    ['damaged', 200, '{"format":"docs-chat-search-index","version":1,"pages":[["/handbook/docs/intro"'],
  ])(
    'with the index %s the search box says "Search is unavailable; rebuild the site." and nothing breaks',
    async (_case, status, body) => {
      // The static host answers for the index file what a broken deployment would.
      await page.route(/\/docs-chat\/search-index\.[0-9a-f]{12}\.json$/, (route) =>
        route.fulfill({ status, contentType: 'application/json', body }),
      );
      const search = await openSearchPage(true);
      await search.openWithShortcut();
      await search.box().pressSequentially('selection', { delay: 15 });
      await search.dialog().locator('p.docs-chat-search-status', { hasText: 'Search is unavailable; rebuild the site.' }).waitFor();
      await expect(search.dialog().locator('[role="option"]').count()).resolves.toBe(1); // "Ask the docs about …" stays
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test(
    'with the assistant offline, the chat panel lists the sections that match the question, and one lands on its anchor',
    async () => {
      const widget = new WidgetPage(page, variant(true).site.origin);
      await openSearchPage(true);
      await widget.launcher().click();
      await widget.questionBox().fill('How do I turn off selection mode?');
      await widget.questionBox().press('Enter');
      const offline = widget.panel().locator('.docs-chat-offline-answer');
      await offline.getByRole('link').first().waitFor({ timeout: 30_000 });
      await expect(offline.textContent()).resolves.toContain('The assistant is offline right now.');
      await expect(widget.panel().getByRole('alert').count()).resolves.toBe(0);
      await screenshot(page, 'chat-offline-search-results');
      await offline.getByRole('link').first().click();
      await waitForAnchor(page);
      const landed = await landing(page);
      expect(landed.pathname.endsWith('/')).toBe(true);
      expect(landed.tag).toMatch(/^h[2-6]$/);
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test(
    "the chat panel's search mode finds sections as the reader types and Enter lands on one",
    async () => {
      const widget = new WidgetPage(page, variant(true).site.origin);
      await openSearchPage(true);
      await widget.launcher().click();
      await widget.panel().getByRole('button', { name: 'Search' }).click();
      const box = widget.panel().getByRole('combobox', { name: 'Search the docs' });
      await expect(box.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
      await box.pressSequentially('suggested questions', { delay: 15 });
      await widget.panel().locator('[role="option"][data-kind="hit"]').first().waitFor();
      await page.keyboard.press('Enter');
      await waitForAnchor(page);
      expect((await landing(page)).onScreen).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  describe('with the chat server running', () => {
    let server: RunningChatServer;

    beforeAll(async () => {
      // A data folder of its own (the other test file's server holds the shared one's lock), with the shared index.
      const shared = readSharedBuild();
      const dataDir = path.join(shared.workDir, 'search-server-data');
      fs.cpSync(path.join(shared.dataDir, 'index'), path.join(dataDir, 'index'), { recursive: true });
      server = await startChatServer({
        dataDir,
        port: serverPort,
        corsOrigin: variant(true).site.origin,
        logFile: path.join(E2E_ARTIFACTS_DIR, 'search-chat-server.log'),
      });
    }, SLOW);

    afterAll(async () => {
      await server?.stop();
    });

    test(
      "search asks the server first (GET /search), and its results land on the site's own URLs",
      async () => {
        const search = await openSearchPage(true);
        await search.openWithShortcut();
        await search.type('vector store qdrant');
        await expect(search.source()).resolves.toBe('server');
        expect(requests.some((url) => url === '/search')).toBe(true);
        expect(requests.filter((url) => url.includes('/docs-chat/'))).toEqual([]);
        await page.keyboard.press('Enter');
        await waitForAnchor(page);
        const landed = await landing(page);
        // The server indexed the docs without this build's base URL: the result still lands under /handbook/.
        expect(landed.pathname.startsWith(`${BASE_URL}docs/`)).toBe(true);
        expect(landed.pathname.endsWith('/')).toBe(true);
        expect(pageErrors).toEqual([]);
      },
      SLOW,
    );
  });
});

test('the docs-site build that the other tests share uses the navbar search and no Algolia', () => {
  const shared = readSharedBuild();
  const html = fs.readFileSync(path.join(shared.buildDir, 'docs', 'intro', 'index.html'), 'utf8');
  expect(html).toContain('docs-chat-search-button');
  // (Docusaurus always writes docsearch:* meta tags; what Algolia's theme adds is its button and client.)
  expect(html).not.toMatch(/DocSearch-Button|algolia/i);
});
