import fs from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { startGeminiStandIn, type GeminiStandIn } from '@docs-chat/stand-ins';
import { startChatServer, type RunningChatServer } from './support/chat-server.js';
import { findChromium, launchChromium, type LaunchedChromium } from './support/chromium.js';
import { E2E_ARTIFACTS_DIR } from './support/paths.js';
import { readSharedBuild } from './support/shared-build.js';
import { serveStaticSite, type StaticSite } from './support/static-server.js';
import { auditAccessibility, screenshot, WidgetPage, type AxeViolationSummary } from './support/widget-page.js';
import { readPanelLayout, waitForColourMode } from './support/panel-layout.js';
import { countTokens } from '@docs-chat/core';
import { CODE_ANSWER, CODE_QUESTION } from './support/code-answer.js';

// The built docs-site in headless Debian Chromium, talking to the real docs-chat
// server on offline defaults (local embedder, embedded store, extractive answers,
// PGlite). The site and the server run on different origins, as in production,
// so CORS is exercised too.

const SLOW = 120_000;
const QUESTION = 'Which environment variables switch the vector store to Qdrant?';
/** The code blocks' background in each colour mode: those of docs-site/src/prism-themes.ts (GitHub's and Dracula's). */
const CODE_BACKGROUND = { light: '#f6f8fa', dark: '#282a36' };

let site: StaticSite;
let server: RunningChatServer;
let dataDir: string;
let serverPort: number;
let chromium: LaunchedChromium;
let page: Page;
let widget: WidgetPage;
let pageErrors: string[];
let chatRequests: { mode?: string; context?: string; message?: string }[];

beforeAll(async () => {
  // Fails (never skips) with how to install Chromium when it is missing.
  findChromium();
  const build = readSharedBuild();
  dataDir = build.dataDir;
  // One log per run: the server's start-up errors quoted in a failure must be this run's.
  fs.mkdirSync(E2E_ARTIFACTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(E2E_ARTIFACTS_DIR, 'chat-server.log'), '');
  serverPort = build.serverPort;
  site = await serveStaticSite(build.buildDir, build.sitePort);
  server = await startOfflineServer();
  chromium = await launchChromium();
}, SLOW);

/**
 * The real server on offline defaults, on the port the site was built to call. One browser plays every reader
 * here, and the accessibility audit resumes one conversation on each of about 60 page loads in a minute or two:
 * on a quiet machine that passed the default 40 conversation reads a minute per reader and got 429s (the rate
 * limits have their own tests), so this server allows more.
 */
function startOfflineServer(extraEnv: Record<string, string> = {}): Promise<RunningChatServer> {
  return startChatServer({
    dataDir,
    port: serverPort,
    corsOrigin: site.origin,
    logFile: path.join(E2E_ARTIFACTS_DIR, 'chat-server.log'),
    extraEnv: { CONVERSATION_RATE_LIMIT_MAX: '1000', ...extraEnv },
  });
}

afterAll(async () => {
  await chromium?.close();
  await server?.stop();
  await site?.close();
});

beforeEach(async () => {
  page = await chromium.context.newPage();
  widget = new WidgetPage(page, site.origin);
  pageErrors = [];
  chatRequests = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && request.url() === `${server.url}/chat`) chatRequests.push(JSON.parse(request.postData() ?? '{}'));
  });
  // Every test starts as a first-time reader: no saved conversation, default colour mode.
  await widget.open('/docs/intro');
  await page.evaluate(() => localStorage.clear());
}, SLOW);

afterEach(async () => {
  await page?.close();
});

async function ask(question: string): Promise<void> {
  await widget.questionBox().fill(question);
  await widget.questionBox().press('Enter');
}

/** Where the reader ends up after following a link: the page, the element the hash names, and whether it is on screen. */
async function landing(): Promise<{
  pathname: string;
  hash: string;
  tag: string | null;
  text: string;
  onScreen: boolean;
  uncovered: boolean;
}> {
  return page.evaluate(() => {
    const hash = decodeURIComponent(location.hash.slice(1));
    const target = hash ? document.getElementById(hash) : null;
    const rect = target?.getBoundingClientRect();
    const onScreen = Boolean(rect && rect.height > 0 && rect.top >= 0 && rect.bottom <= window.innerHeight);
    // Not hidden under the sticky navbar or the open panel: what is drawn at the heading's centre is the heading.
    const hit = rect ? document.elementFromPoint(rect.left + Math.min(rect.width / 2, 40), rect.top + rect.height / 2) : null;
    return {
      pathname: location.pathname,
      hash,
      tag: target?.tagName.toLowerCase() ?? null,
      text: (target?.textContent ?? '').replace(/\u200b/g, '').trim(),
      onScreen,
      uncovered: Boolean(target && hit && target.contains(hit)),
    };
  });
}

async function waitForLanding(href: string): Promise<void> {
  const url = new URL(href, site.origin);
  await page.waitForFunction((expected) => location.pathname + location.hash === expected, url.pathname + url.hash, { timeout: 15_000 });
  // Let the router's scroll to the anchor settle.
  await page
    .waitForFunction(
      () => {
        const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
        const rect = target?.getBoundingClientRect();
        return Boolean(rect && rect.top >= 0 && rect.bottom <= window.innerHeight);
      },
      undefined,
      { timeout: 10_000 },
    )
    .catch(() => undefined); // the assertion on landing() reports it
}

test(
  'clicking the launcher opens the panel, the answer streams in, and its citation lands on the cited heading',
  async () => {
    await expect(widget.panel().count()).resolves.toBe(0);
    await widget.launcher().click();
    await widget.panel().waitFor({ state: 'visible' });
    await expect(widget.questionBox().evaluate((box) => box === document.activeElement)).resolves.toBe(true);

    await widget.watchAnswerText();
    await ask(QUESTION);
    await expect(widget.panel().getByText(QUESTION, { exact: true }).count()).resolves.toBe(1);
    const answer = await widget.finishedAnswer(1);

    // The answer went through its streaming state on screen before the finished text. (The extractive
    // answers of the offline defaults may arrive in one network write; token-by-token growth is checked
    // below with a model that streams over time.)
    const observations = await widget.streamObservations();
    expect(observations.some((seen) => seen.streaming)).toBe(true);
    expect(observations[observations.length - 1]?.length ?? 0).toBeGreaterThan(40);

    expect(chatRequests).toEqual([expect.objectContaining({ message: QUESTION, mode: 'general' })]);
    await expect(widget.panel().getByRole('alert').count()).resolves.toBe(0);

    const sources = answer.getByRole('navigation', { name: 'Sources' }).getByRole('link');
    expect(await sources.count()).toBeGreaterThan(0);
    const citation = answer.locator('sup.docs-chat-citation a').first();
    await citation.waitFor();
    const citationHref = (await citation.getAttribute('href')) ?? '';
    // Citation [1] and source 1 are the same section.
    const sourceHref = (await sources.first().getAttribute('href')) ?? '';
    expect(new URL(citationHref, site.origin).href).toBe(new URL(sourceHref, site.origin).href);
    expect(citationHref).toMatch(/^\/docs\/[^#]+#.+/);
    const citedSection = ((await sources.first().locator('span').last().textContent()) ?? '').split(' › ').pop()?.trim();
    await screenshot(page, 'click-flow-answer-light');

    await citation.click();
    await waitForLanding(citationHref);
    const landed = await landing();
    const expected = new URL(citationHref, site.origin);
    expect(landed).toEqual({
      pathname: expected.pathname,
      hash: decodeURIComponent(expected.hash.slice(1)),
      tag: expect.stringMatching(/^h[1-6]$/),
      text: citedSection,
      onScreen: true,
      uncovered: true,
    });
    // The router navigated (no reload): the conversation is still on screen beside the page.
    await expect(widget.panel().getByText(QUESTION, { exact: true }).isVisible()).resolves.toBe(true);
    await screenshot(page, 'click-flow-citation-landing-light');
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'Ctrl+I opens the panel with focus in the question box; Escape closes it and focus returns to the launcher',
  async () => {
    await page.keyboard.press('Control+i');
    await widget.panel().waitFor({ state: 'visible' });
    await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea', name: 'Your question', insidePanel: true });

    await page.keyboard.press('Escape');
    await widget.panel().waitFor({ state: 'hidden' });
    await expect(widget.focused()).resolves.toMatchObject({ isLauncher: true });

    // The shortcut toggles: pressed again while open, it closes the panel.
    await page.keyboard.press('Control+i');
    await widget.panel().waitFor({ state: 'visible' });
    await page.keyboard.press('Control+i');
    await widget.panel().waitFor({ state: 'hidden' });
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'with the keyboard only: the launcher is reachable by Tab, Enter sends, the panel has a sensible Tab order, a source opens with Enter, Escape returns to the launcher',
  async () => {
    // The widget comes last in the page: one Shift+Tab from the top of the page reaches the launcher.
    await page.keyboard.press('Shift+Tab');
    await expect(widget.focused()).resolves.toMatchObject({ isLauncher: true, name: expect.stringMatching(/^Ask the docs \(Ctrl\+I\)$/) });
    await page.keyboard.press('Enter');
    await widget.panel().waitFor({ state: 'visible' });
    await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea', name: 'Your question' });

    // Shift+Enter adds a line; Enter sends.
    await page.keyboard.type('Which environment variables');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('switch the vector store to Qdrant?');
    await expect(widget.questionBox().inputValue()).resolves.toBe('Which environment variables\nswitch the vector store to Qdrant?');
    await page.keyboard.press('Enter');
    await expect(widget.questionBox().inputValue()).resolves.toBe('');
    await widget.finishedAnswer(1);
    expect(chatRequests).toEqual([
      expect.objectContaining({ mode: 'general', message: 'Which environment variables\nswitch the vector store to Qdrant?' }),
    ]);

    // Tab through the whole panel from its first control; every stop is named and the order follows the layout.
    await widget.panel().getByRole('button', { name: 'New chat' }).focus();
    const stops: { tag: string; name: string; insidePanel: boolean }[] = [await widget.focused()];
    for (let index = 0; index < 40; index += 1) {
      await page.keyboard.press('Tab');
      const stop = await widget.focused();
      if (!stop.insidePanel) break;
      stops.push(stop);
      if (stop.tag === 'textarea') break;
    }
    const names = stops.map((stop) => stop.name);
    expect(stops.every((stop) => stop.name.length > 0)).toBe(true);
    const position = (pattern: RegExp): number => names.findIndex((name) => pattern.test(name));
    // The first source is named by its page title (and section), as the sources list shows it.
    const firstSource = normalise(
      (await widget.panel().getByRole('navigation', { name: 'Sources' }).getByRole('link').first().textContent()) ?? '',
    );
    const order = [
      /^New chat$/,
      /^Close chat$/,
      /^Conversation$/,
      /^Source 1: /,
      new RegExp(`^${firstSource.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
      /^Copy answer$/,
      /^Helpful answer$/,
      /^Unhelpful answer$/,
      /^Your question$/,
    ].map(position);
    expect({ names, order }).toEqual({ names, order: [...order].sort((a, b) => a - b) });
    expect(order.every((index) => index >= 0)).toBe(true);

    // Back up to the first source link and follow it with Enter.
    const sourceLink = widget.panel().getByRole('navigation', { name: 'Sources' }).getByRole('link').first();
    const href = (await sourceLink.getAttribute('href')) ?? '';
    for (let index = 0; index < 40 && !(await sourceLink.evaluate((link) => link === document.activeElement)); index += 1)
      await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await waitForLanding(href);
    const landed = await landing();
    expect(landed).toMatchObject({
      pathname: new URL(href, site.origin).pathname,
      tag: expect.stringMatching(/^h[1-6]$/),
      onScreen: true,
      uncovered: true,
    });

    // Escape from inside the panel closes it and puts focus back on the launcher.
    await widget.questionBox().focus();
    await page.keyboard.press('Escape');
    await widget.panel().waitFor({ state: 'hidden' });
    await expect(widget.focused()).resolves.toMatchObject({ isLauncher: true });
    await screenshot(page, 'keyboard-flow-closed-light');
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

/** The first paragraph of the page's article with enough text to ask about. */
async function firstParagraph(): Promise<{ text: string; index: number }> {
  return page.evaluate(() => {
    const paragraphs = [...document.querySelectorAll('main article .markdown > p')];
    const index = paragraphs.findIndex((paragraph) => (paragraph.textContent ?? '').trim().length > 80);
    if (index === -1) throw new Error('No paragraph of 80+ characters in the article.');
    return { text: (paragraphs[index]?.textContent ?? '').replace(/\s+/g, ' ').trim(), index };
  });
}

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

test(
  'selecting a paragraph offers to ask about it; selection mode answers from the passage and Exit selection mode returns to the whole docs',
  async () => {
    const paragraph = await firstParagraph();
    await page.locator('main article .markdown > p').nth(paragraph.index).click({ clickCount: 3 });
    const offer = page.getByRole('button', { name: 'Ask about selection' });
    await offer.waitFor({ state: 'visible' });
    await screenshot(page, 'selection-offer-light');
    await offer.click();

    await widget.panel().waitFor({ state: 'visible' });
    const banner = widget.panel().getByRole('region', { name: 'Selection mode', exact: true });
    await banner.waitFor({ state: 'visible' });
    const preview = normalise((await banner.locator('blockquote').textContent()) ?? '');
    expect(paragraph.text.startsWith(preview.replace(/…$/, '').slice(0, 60))).toBe(true);
    await expect(widget.questionBox().evaluate((box) => box === document.activeElement)).resolves.toBe(true);
    await expect(widget.questionBox().getAttribute('placeholder')).resolves.toBe('Ask about the selected text…');

    await ask('What does this passage say docs-chat does?');
    const answer = await widget.finishedAnswer(1);
    expect(normalise((await answer.textContent()) ?? '').length).toBeGreaterThan(40);
    await expect(widget.panel().getByRole('alert').count()).resolves.toBe(0);
    expect(chatRequests).toHaveLength(1);
    expect(chatRequests[0]).toMatchObject({ mode: 'selection' });
    expect(normalise(chatRequests[0]?.context ?? '')).toBe(paragraph.text);
    await screenshot(page, 'selection-mode-answer-light');

    await banner.getByRole('button', { name: 'Exit selection mode', exact: true }).click();
    await banner.waitFor({ state: 'detached' });
    await expect(widget.questionBox().getAttribute('placeholder')).resolves.toBe('Ask a question about the docs…');
    await ask(QUESTION);
    await widget.finishedAnswer(2);
    expect(chatRequests[1]).toMatchObject({ mode: 'general' });
    expect(chatRequests[1]?.context).toBeUndefined();
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'with the keyboard only: Ctrl+I with text selected enters selection mode, Enter asks, and Exit selection mode is reachable and puts focus back in the question box',
  async () => {
    const paragraph = await firstParagraph();
    // Keyboard text selection in a page needs caret browsing, which headless Chromium cannot switch on;
    // the selection is made through the Selection API, which fires the same selectionchange a keyboard selection does.
    await page.evaluate((index) => {
      const target = document.querySelectorAll('main article .markdown > p')[index];
      const range = document.createRange();
      range.selectNodeContents(target as Node);
      const selection = document.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    }, paragraph.index);
    await page.getByRole('button', { name: 'Ask about selection' }).waitFor({ state: 'visible' });

    await page.keyboard.press('Control+i');
    await widget.panel().waitFor({ state: 'visible' });
    const banner = widget.panel().getByRole('region', { name: 'Selection mode', exact: true });
    await banner.waitFor({ state: 'visible' });
    await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea', name: 'Your question' });

    await page.keyboard.type('Summarise this passage.');
    await page.keyboard.press('Enter');
    await widget.finishedAnswer(1);
    expect(chatRequests[0]).toMatchObject({ mode: 'selection' });
    expect(normalise(chatRequests[0]?.context ?? '')).toBe(paragraph.text);

    const exit = banner.getByRole('button', { name: 'Exit selection mode', exact: true });
    for (let index = 0; index < 40 && !(await exit.evaluate((button) => button === document.activeElement)); index += 1)
      await page.keyboard.press('Shift+Tab');
    await expect(exit.evaluate((button) => button === document.activeElement)).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await banner.waitFor({ state: 'detached' });
    // The button that had focus is gone: focus must land somewhere useful, not on the page's body.
    await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea', name: 'Your question' });

    await page.keyboard.press('Escape');
    await widget.panel().waitFor({ state: 'hidden' });
    await expect(widget.focused()).resolves.toMatchObject({ isLauncher: true });
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

describe.each(['light', 'dark'] as const)('axe-core audit in %s mode', (colorScheme) => {
  async function openInColourMode(): Promise<void> {
    await page.emulateMedia({ colorScheme });
    await widget.open('/docs/intro');
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe(colorScheme);
  }

  async function expectNoViolations(state: string): Promise<void> {
    const violations: AxeViolationSummary[] = await auditAccessibility(page);
    await screenshot(page, `axe-${colorScheme}-${state}`);
    expect({ state, violations }).toEqual({ state, violations: [] });
  }

  test(
    `finds zero WCAG 2.1 A/AA violations with the panel closed, open, answering and in selection mode (${colorScheme})`,
    async () => {
      await openInColourMode();
      await expectNoViolations('panel-closed');

      await widget.launcher().click();
      await widget.panel().waitFor({ state: 'visible' });
      await expectNoViolations('panel-open');

      await ask(QUESTION);
      await widget.finishedAnswer(1);
      await expectNoViolations('panel-with-answer');

      const paragraph = await firstParagraph();
      await page.locator('main article .markdown > p').nth(paragraph.index).click({ clickCount: 3 });
      // With the panel open, a new selection replaces the passage (or starts selection mode through the offer).
      const offer = page.getByRole('button', { name: 'Ask about selection' });
      await offer.waitFor({ state: 'visible' });
      await offer.click();
      await widget.panel().getByRole('region', { name: 'Selection mode', exact: true }).waitFor({ state: 'visible' });
      await expectNoViolations('selection-mode');
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );
});

test(
  'the article stays readable beside the open panel: on wide screens the page reflows beside it with at least 600 px of article, at middle widths the panel lies over the page below the navbar, and the page keeps scrolling under the mouse wheel',
  async () => {
    const seen: Record<number, { layout: string | null; article: number; toggleUncovered: boolean | null }> = {};
    for (const width of [1920, 1600, 1440, 1280, 1200, 1024, 800]) {
      await page.setViewportSize({ width, height: 900 });
      await widget.open('/docs/reference/configuration');
      await widget.launcher().click();
      await widget.panel().waitFor({ state: 'visible' });
      const layout = await readPanelLayout(page);
      seen[width] = {
        layout: layout.layout,
        article: Math.round(layout.article?.width ?? 0),
        toggleUncovered: layout.colourToggleUncovered,
      };
      expect({ width, modal: layout.modal, pageInert: layout.pageInert }).toEqual({ width, modal: false, pageInert: false });
      if (layout.layout === 'push') {
        // The page made room: nothing of the article is under the panel, and it is wide enough to read.
        expect({ width, article: layout.article!.width >= 600, beside: layout.article!.right <= layout.panel.left + 1 }).toEqual({
          width,
          article: true,
          beside: true,
        });
      } else {
        // Over the page: the navbar (colour mode toggle, search, menu) stays uncovered above the panel.
        expect({
          width,
          layout: layout.layout,
          toggleUncovered: layout.colourToggleUncovered !== false,
          panelBelowNavbar: layout.panel.top > 0,
        }).toEqual({
          width,
          layout: 'overlay',
          toggleUncovered: true,
          panelBelowNavbar: true,
        });
      }
      // The page keeps scrolling beside the panel.
      const before = await page.evaluate(() => window.scrollY);
      await page.mouse.move(Math.max(20, layout.panel.left / 2), 500);
      await page.mouse.wheel(0, 800);
      await page.waitForFunction((start) => window.scrollY > start + 100, before, { timeout: 5000 });
      await expect(widget.panel().isVisible()).resolves.toBe(true);
      await page.keyboard.press('Escape');
    }
    // Wide screens reflow; the common laptop widths, where reflowing would squeeze the article, overlay.
    expect(seen[1920]?.layout).toBe('push');
    expect(seen[1280]?.layout).toBe('overlay');
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'the launcher never covers the "Scroll back to top" button, on a desktop and on a phone',
  async () => {
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await widget.open('/docs/reference/configuration');
      // Docusaurus shows the button when the reader scrolls back up, far enough from the top.
      await page.evaluate(() => window.scrollTo(0, 3000));
      await page.waitForTimeout(150);
      await page.evaluate(() => window.scrollTo(0, 2600));
      const backToTop = page.getByRole('button', { name: 'Scroll back to top' });
      await page.waitForFunction(() => getComputedStyle(document.querySelector('.theme-back-to-top-button')!).opacity === '1', undefined, {
        timeout: 5000,
      });
      const boxes = await page.evaluate(() => {
        const box = (selector: string) => {
          const rect = document.querySelector(selector)!.getBoundingClientRect();
          const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
          return {
            left: rect.left,
            right: rect.right,
            top: rect.top,
            bottom: rect.bottom,
            onTop: Boolean(hit && document.querySelector(selector)!.contains(hit)),
          };
        };
        return { launcher: box('.docs-chat-launcher'), backToTop: box('.theme-back-to-top-button') };
      });
      const overlap = !(
        boxes.launcher.right <= boxes.backToTop.left ||
        boxes.backToTop.right <= boxes.launcher.left ||
        boxes.launcher.bottom <= boxes.backToTop.top ||
        boxes.backToTop.bottom <= boxes.launcher.top
      );
      expect({ viewport: viewport.width, overlap, launcherOnTop: boxes.launcher.onTop, backToTopOnTop: boxes.backToTop.onTop }).toEqual({
        viewport: viewport.width,
        overlap: false,
        launcherOnTop: true,
        backToTopOnTop: true,
      });
      await backToTop.click();
      await page.waitForFunction(() => window.scrollY < 50, undefined, { timeout: 5000 });
    }
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'on a phone the full-screen panel is modal (focus stays inside, the page behind is inert); the side panel on a wide screen is not, and resizing switches between them',
  async () => {
    const focusLeaks = async (): Promise<string[]> => {
      const leaks: string[] = [];
      for (const key of [...Array(12).fill('Tab'), ...Array(12).fill('Shift+Tab')] as string[]) {
        await page.keyboard.press(key);
        const focused = await widget.focused();
        if (!focused.insidePanel) leaks.push(`${key} -> ${focused.tag} "${focused.name}"`);
      }
      return leaks;
    };
    // Inert elements, leaving out the theme's own closed mobile menu (which Docusaurus keeps inert at phone widths).
    const inertElements = (): Promise<string[]> =>
      page
        .locator('[inert]')
        .evaluateAll((elements) =>
          elements.filter((element) => !element.closest('.navbar-sidebar')).map((element) => element.outerHTML.slice(0, 80)),
        );
    const themeInert: string[] = [];
    await page.setViewportSize({ width: 390, height: 844 });
    await widget.open('/docs/intro');
    await expect(inertElements()).resolves.toEqual(themeInert);
    await widget.launcher().click();
    await widget.panel().waitFor({ state: 'visible' });
    // The modal tools are a small chunk of their own: the page turns inert once it has arrived.
    await page.waitForFunction(() => Boolean(document.querySelector('main')?.closest('[inert]')), undefined, { timeout: 5000 });
    let layout = await readPanelLayout(page);
    expect({ modal: layout.modal, pageInert: layout.pageInert, layout: layout.layout }).toEqual({
      modal: true,
      pageInert: true,
      layout: 'full-screen',
    });
    await expect(focusLeaks()).resolves.toEqual([]);

    // Rotating to a wide screen makes it a side panel beside a live page, and back.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.waitForFunction(() => document.getElementById('docs-chat-panel')?.getAttribute('aria-modal') === 'false');
    layout = await readPanelLayout(page);
    expect({ modal: layout.modal, pageInert: layout.pageInert }).toEqual({ modal: false, pageInert: false });
    await expect(inertElements()).resolves.toEqual(themeInert);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(
      () =>
        document.getElementById('docs-chat-panel')?.getAttribute('aria-modal') === 'true' &&
        Boolean(document.querySelector('main')?.closest('[inert]')),
    );
    await expect(focusLeaks()).resolves.toEqual([]);

    // Closing gives the page back.
    await page.keyboard.press('Escape');
    await widget.panel().waitFor({ state: 'hidden' });
    await expect(inertElements()).resolves.toEqual(themeInert);
    await expect(widget.focused()).resolves.toMatchObject({ isLauncher: true });
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'selecting a whole long page offers "Ask about selection" where the reader can see and click it',
  async () => {
    await widget.open('/docs/reference/configuration');
    await selectContents('main article');
    const offer = page.getByRole('button', { name: 'Ask about selection' });
    await offer.waitFor({ state: 'attached' });
    const placement = await offer.evaluate((button) => {
      const rect = button.getBoundingClientRect();
      const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
      return {
        onScreen: rect.top >= 0 && rect.left >= 0 && rect.bottom <= window.innerHeight && rect.right <= window.innerWidth,
        onTop: Boolean(hit && button.contains(hit)),
      };
    });
    expect(placement).toEqual({ onScreen: true, onTop: true });
    await offer.click();
    await widget.panel().getByRole('region', { name: 'Selection mode', exact: true }).waitFor({ state: 'visible' });
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'with prefers-reduced-motion the panel and the launcher do not animate, and without it the panel slides in',
  async () => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await widget.launcher().hover();
    await expect(widget.launcher().evaluate((launcher) => getComputedStyle(launcher).transitionDuration)).resolves.toMatch(/^0s(, 0s)*$/);
    await widget.launcher().click();
    await widget.panel().waitFor({ state: 'visible' });
    await expect(widget.panel().evaluate((panel) => getComputedStyle(panel).animationName)).resolves.toBe('none');
    await page.keyboard.press('Escape');

    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await widget.launcher().click();
    await widget.panel().waitFor({ state: 'visible' });
    await expect(widget.panel().evaluate((panel) => getComputedStyle(panel).animationName)).resolves.not.toBe('none');
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'on a phone the panel fills the screen, and following a source closes it to show the cited section, with focus on its heading',
  async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await widget.open('/docs/intro');
    await widget.launcher().click();
    await widget.panel().waitFor({ state: 'visible' });
    const box = await widget.panel().boundingBox();
    expect(box).toEqual({ x: 0, y: 0, width: 390, height: 844 });
    await screenshot(page, 'phone-panel-open-light');

    await ask(QUESTION);
    const answer = await widget.finishedAnswer(1);
    const source = answer.getByRole('navigation', { name: 'Sources' }).getByRole('link').first();
    const href = (await source.getAttribute('href')) ?? '';
    await source.click();
    await widget.panel().waitFor({ state: 'hidden' });
    await waitForLanding(href);
    await expect(landing()).resolves.toMatchObject({
      pathname: new URL(href, site.origin).pathname,
      tag: expect.stringMatching(/^h[1-6]$/),
      onScreen: true,
      uncovered: true,
    });
    // A keyboard or screen-reader user continues from the section, not from the launcher in the corner.
    const hash = decodeURIComponent(new URL(href, site.origin).hash.slice(1));
    await page.waitForFunction((id) => document.activeElement?.id === id, hash, { timeout: 5000 });
    await screenshot(page, 'phone-citation-landing-light');
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'after a reload, reopening the widget offers to resume the last conversation; resuming shows it again with its rating, a rating can be taken back, and focus lands in the question box after Resume, New chat and Start new',
  async () => {
    await widget.launcher().click();
    await ask(QUESTION);
    let answer = await widget.finishedAnswer(1);
    const feedbackBodies: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url() === `${server.url}/feedback`)
        feedbackBodies.push(JSON.parse(request.postData() ?? '{}'));
    });
    const helpful = () => widget.answers().first().getByRole('button', { name: 'Helpful answer', exact: true });
    const stored = page.waitForResponse((response) => response.url() === `${server.url}/feedback`);
    await helpful().click();
    await expect(stored.then((response) => response.status())).resolves.toBe(201);

    const resumeAfterReload = async (): Promise<void> => {
      await page.reload();
      await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached' });
      await widget.launcher().click();
      await widget.panel().getByRole('button', { name: 'Resume last conversation' }).click();
      await widget.panel().getByText(QUESTION, { exact: true }).waitFor({ state: 'visible' });
    };
    await resumeAfterReload();
    answer = await widget.finishedAnswer(1);
    await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea', name: 'Your question' });
    await expect(answer.getByRole('navigation', { name: 'Sources' }).getByRole('link').count()).resolves.toBeGreaterThan(0);
    // The rating given before the reload is still shown as given.
    await expect(helpful().getAttribute('aria-pressed')).resolves.toBe('true');

    // Pressing the pressed thumb again takes the rating back, on the server too.
    const takenBack = page.waitForResponse((response) => response.url() === `${server.url}/feedback`);
    await helpful().click();
    await expect(takenBack.then((response) => response.status())).resolves.toBe(200);
    await expect(helpful().getAttribute('aria-pressed')).resolves.toBe('false');
    await expect(answer.getByText('Thanks for the feedback').count()).resolves.toBe(0);
    expect(feedbackBodies).toEqual([expect.objectContaining({ rating: 'up' }), expect.objectContaining({ rating: null })]);
    await resumeAfterReload();
    await widget.finishedAnswer(1);
    await expect(helpful().getAttribute('aria-pressed')).resolves.toBe('false');

    // New chat: the button that had focus goes away with the conversation; focus goes to the question box.
    await widget.panel().getByRole('button', { name: 'New chat' }).click();
    await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea', name: 'Your question' });
    await ask(QUESTION);
    await widget.finishedAnswer(1);

    // "Start new" after another reload gives an empty conversation with the suggestions.
    await page.reload();
    await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached' });
    await widget.launcher().click();
    await widget.panel().getByRole('button', { name: 'Start new' }).click();
    await widget.panel().getByRole('list', { name: 'Suggested questions' }).waitFor({ state: 'visible' });
    await expect(widget.answers().count()).resolves.toBe(0);
    await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea', name: 'Your question' });
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'the conversation menu shares a read-only link that another reader opens; deleting the conversation removes it, and the link then finds nothing (404)',
  async () => {
    await widget.launcher().click();
    await ask(QUESTION);
    await widget.finishedAnswer(1);
    await chromium.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.origin });

    const menu = () => widget.panel().getByRole('button', { name: 'Conversation' });
    await menu().click();
    const shareCreated = page.waitForResponse(
      (response) => response.request().method() === 'POST' && /\/conversations\/[^/]+\/share$/.test(response.url()),
    );
    await widget.panel().getByRole('menuitem', { name: 'Copy share link' }).click();
    expect((await shareCreated).status()).toBeLessThan(300);
    await widget
      .panel()
      .getByText(/Share link copied/)
      .waitFor({ state: 'visible' });
    const link = await page.evaluate(() => navigator.clipboard.readText());
    const shareId = new URL(link).searchParams.get('docs-chat-share');
    expect(link.startsWith(`${site.origin}/docs/intro?`)).toBe(true);
    expect(shareId).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    // Another tab opens the link: the panel opens on the shared conversation, read-only.
    const reader = await chromium.context.newPage();
    try {
      const readerWidget = new WidgetPage(reader, site.origin);
      await reader.goto(link);
      await readerWidget
        .panel()
        .getByText(/You are reading a conversation someone shared with you/)
        .waitFor({ state: 'visible', timeout: 15_000 });
      await readerWidget.panel().getByText(QUESTION, { exact: true }).waitFor({ state: 'visible' });
      await expect(readerWidget.answers().count()).resolves.toBe(1);
      await expect(readerWidget.panel().getByRole('textbox', { name: 'Your question' }).count()).resolves.toBe(0);
      await expect(readerWidget.panel().getByRole('button', { name: 'Helpful answer', exact: true }).count()).resolves.toBe(0);

      // The owner deletes the conversation, after confirming.
      await menu().click();
      await widget.panel().getByRole('menuitem', { name: 'Delete conversation' }).click();
      const confirm = widget.panel().getByRole('alertdialog', { name: 'Delete this conversation?' });
      const deleted = page.waitForResponse((response) => response.request().method() === 'DELETE');
      await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
      expect((await deleted).status()).toBeLessThan(300);
      await widget.panel().getByText('Conversation deleted.').waitFor({ state: 'visible' });
      await expect(widget.answers().count()).resolves.toBe(0);

      // The share link now finds nothing: the API answers 404 and the page says the conversation is gone.
      expect((await fetch(`${server.url}/shared/${shareId}`)).status).toBe(404);
      await reader.reload();
      await readerWidget
        .panel()
        .getByText(/This shared conversation does not exist or was deleted/)
        .waitFor({ state: 'visible', timeout: 15_000 });
      await expect(readerWidget.answers().count()).resolves.toBe(0);
    } finally {
      await reader.close();
    }
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

/** Selects the contents of the element matched by `selector` through the Selection API (what a drag or Shift+arrows produce). */
async function selectContents(selector: string, index = 0): Promise<string> {
  return page.evaluate(
    ({ selector, index }) => {
      const target = document.querySelectorAll(selector)[index];
      if (!target) throw new Error(`Nothing matches ${selector} [${index}]`);
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = document.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      return selection?.toString() ?? '';
    },
    { selector, index },
  );
}

test(
  'in selection mode a new selection in the page replaces the passage, while selecting text in the widget or outside the content offers nothing',
  async () => {
    const paragraphs = await page.locator('main article .markdown > p').allTextContents();
    expect(paragraphs.length).toBeGreaterThan(2);
    await page.locator('main article .markdown > p').nth(0).click({ clickCount: 3 });
    await page.getByRole('button', { name: 'Ask about selection' }).click();
    const banner = widget.panel().getByRole('region', { name: 'Selection mode', exact: true });
    await banner.waitFor({ state: 'visible' });
    await expect(banner.locator('blockquote').textContent()).resolves.toContain(normalise(paragraphs[0] ?? '').slice(0, 40));

    await page.locator('main article .markdown > p').nth(2).click({ clickCount: 3 });
    await page.waitForFunction(
      (start) =>
        (document.querySelector('#docs-chat-panel .docs-chat-selection blockquote')?.textContent ?? '')
          .replace(/\s+/g, ' ')
          .includes(start),
      normalise(paragraphs[2] ?? '').slice(0, 40),
      { timeout: 5000 },
    );
    await ask('What does this passage say?');
    await widget.finishedAnswer(1);
    expect(normalise(chatRequests[0]?.context ?? '')).toBe(normalise(paragraphs[2] ?? ''));

    // Text selected inside the answer or in the sidebar is not page content: no offer.
    await banner.getByRole('button', { name: 'Exit selection mode', exact: true }).click();
    await selectContents('#docs-chat-panel .docs-chat-markdown p');
    await page.waitForTimeout(500); // the hook waits 200 ms after the last selection change
    await expect(page.getByRole('button', { name: 'Ask about selection' }).count()).resolves.toBe(0);
    await selectContents('nav.menu');
    await page.waitForTimeout(500);
    await expect(page.getByRole('button', { name: 'Ask about selection' }).count()).resolves.toBe(0);
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'a selection over 2,000 tokens is cut with a visible warning, and the question still gets an answer',
  async () => {
    await widget.open('/docs/reference/configuration');
    const selected = await selectContents('main article .markdown');
    expect(selected.length).toBeGreaterThan(9000);
    await page.getByRole('button', { name: 'Ask about selection' }).click();
    const banner = widget.panel().getByRole('region', { name: 'Selection mode', exact: true });
    await banner.getByText(/only the first 2000 are used/).waitFor({ state: 'visible' });
    await screenshot(page, 'selection-truncated-light');
    await ask('Which variable sets the port?');
    await widget.finishedAnswer(1);
    await expect(widget.panel().getByRole('alert').count()).resolves.toBe(0);
    const context = chatRequests[0]?.context ?? '';
    expect(context.length).toBeGreaterThan(1000);
    expect(context.length).toBeLessThan(selected.length);
    // One rule and one message: the widget cuts the passage exactly as the server would, so the server
    // has nothing left to cut and the reader reads one warning, not two contradictory token counts.
    expect(countTokens(context)).toBeLessThanOrEqual(2000);
    const warnings = normalise((await widget.panel().textContent()) ?? '').match(/about \d+ tokens/g) ?? [];
    expect(warnings).toHaveLength(1);
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'rating an answer is stored by the server and acknowledged, and the finished answer is announced once through the live region, then cleared so browse mode does not read it twice',
  async () => {
    await widget.launcher().click();
    await widget.panel().waitFor({ state: 'visible' });
    await widget.watchAnnouncements();
    await ask(QUESTION);
    const answer = await widget.finishedAnswer(1);
    await widget.waitForAnnouncedAnswer(answer);
    // Announced, then gone from the live region: the answer itself stays in the conversation only.
    await page.waitForFunction(
      () => [...document.querySelectorAll('#docs-chat-panel [aria-live]')].every((region) => (region.textContent ?? '').trim() === ''),
      undefined,
      { timeout: 10_000 },
    );

    const feedback = page.waitForResponse(
      (response) => response.url() === `${server.url}/feedback` && response.request().method() === 'POST',
    );
    await answer.getByRole('button', { name: 'Helpful answer', exact: true }).click();
    await expect(feedback.then((response) => response.status())).resolves.toBeLessThan(300);
    await answer.getByText('Thanks for the feedback').waitFor({ state: 'visible' });
    await expect(answer.getByRole('button', { name: 'Helpful answer', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

test(
  'for screen readers: no second banner landmark, a uniquely named Sources landmark per answer, source links named "page, section", and "Copied" announced without the buttons beside it moving',
  async () => {
    await chromium.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.origin });
    await widget.launcher().click();
    await ask(QUESTION);
    await widget.finishedAnswer(1);
    await ask('How do I add the chat widget to my Docusaurus site?');
    const second = await widget.finishedAnswer(2);

    await expect(widget.panel().getByRole('banner').count()).resolves.toBe(0);
    const landmarks = await widget
      .panel()
      .getByRole('navigation')
      .evaluateAll((navs) => navs.map((nav) => nav.getAttribute('aria-label') ?? ''));
    expect(landmarks.length).toBe(2);
    expect(new Set(landmarks).size).toBe(2);
    expect(landmarks.every((name) => /^Sources/.test(name))).toBe(true);

    // A source link's accessible name reads "page title, section", as the two lines it shows, not run together.
    const sources = widget.panel().locator('.docs-chat-sources').first();
    // (Chromium sets the spoken comma apart with a space, "Configuration , Vector…": the same words and pause for a screen reader.)
    const linkNames = [...(await sources.ariaSnapshot()).matchAll(/link "([^"]+)"/g)].map((match) => match[1]?.replace(/\s+,/g, ','));
    const shownLines = await sources.locator('a').evaluateAll((links) => {
      // The text a sighted reader sees: without the parts only screen readers get (clipped to nothing).
      const spokenOnly = (element: Element): boolean => {
        const style = getComputedStyle(element);
        return style.position === 'absolute' || style.clipPath !== 'none' || element.getBoundingClientRect().width <= 1;
      };
      const visibleText = (node: Node): string =>
        node.nodeType === Node.TEXT_NODE
          ? (node.textContent ?? '')
          : spokenOnly(node as Element)
            ? ''
            : [...node.childNodes].map(visibleText).join('');
      return links.map((link) =>
        [...link.children]
          .map((line) => visibleText(line).replace(/\s+/g, ' ').trim())
          .filter((line) => line !== '')
          .join(', '),
      );
    });
    expect(linkNames.length).toBeGreaterThan(0);
    expect(linkNames).toEqual(shownLines);
    expect(shownLines.some((name) => name.includes(', '))).toBe(true);

    await widget.watchAnnouncements();
    const thumbsBefore = await second.getByRole('button', { name: 'Helpful answer', exact: true }).boundingBox();
    await second.getByRole('button', { name: 'Copy answer' }).click();
    await second.getByRole('button', { name: 'Copied' }).waitFor();
    const thumbsAfter = await second.getByRole('button', { name: 'Helpful answer', exact: true }).boundingBox();
    expect(thumbsAfter?.x).toBe(thumbsBefore?.x);
    await page.waitForFunction(
      () => (window as unknown as { __announcements: string[] }).__announcements.some((text) => /copied/i.test(text)),
      undefined,
      { timeout: 5000 },
    );
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain('docs');
    expect(pageErrors).toEqual([]);
  },
  SLOW,
);

describe('with a model that streams over time (the real server on Gemini, answered by the local Gemini stand-in)', () => {
  let gemini: GeminiStandIn;

  beforeAll(async () => {
    findChromium(); // as in the outer beforeAll: say how to install Chromium rather than fail obscurely
    gemini = await startGeminiStandIn({ eventDelayMs: 150, wordsPerEvent: 2 });
    await server?.stop();
    server = await startOfflineServer({
      LLM_PROVIDER: 'gemini',
      LLM_MODEL: 'gemini-flash-latest',
      GEMINI_API_KEY: gemini.apiKey,
      GEMINI_BASE_URL: gemini.url,
      // The index was built with the no-key default (neural): a key would switch questions to Gemini embeddings.
      EMBEDDING_PROVIDER: 'neural',
    });
  }, SLOW);

  afterAll(async () => {
    await server?.stop();
    await gemini?.close();
    if (site) server = await startOfflineServer();
  }, SLOW);

  test(
    'the answer grows on screen token by token, and Stop generating keeps what arrived',
    async () => {
      await widget.launcher().click();
      await widget.panel().waitFor({ state: 'visible' });
      await widget.watchAnswerText();
      await ask(QUESTION);
      await widget.panel().getByRole('button', { name: 'Stop generating' }).waitFor({ state: 'visible' });
      await widget.finishedAnswer(1);
      const lengths = (await widget.streamObservations()).filter((seen) => seen.streaming && seen.length > 0).map((seen) => seen.length);
      const distinct = [...new Set(lengths)];
      expect(distinct.length).toBeGreaterThanOrEqual(3);
      expect(distinct).toEqual([...distinct].sort((a, b) => a - b));
      await expect(widget.answers().first().textContent()).resolves.toContain('Here is what the documentation says');
      await expect(widget.answers().first().locator('sup.docs-chat-citation a').count()).resolves.toBeGreaterThan(0);

      gemini.setDelay(500);
      await ask('How do I add the chat widget to my Docusaurus site?');
      await page.waitForFunction(() => {
        const answers = document.querySelectorAll('#docs-chat-panel [aria-busy]');
        return (answers[1]?.querySelector('.docs-chat-markdown')?.textContent ?? '').length > 0;
      });
      await widget.panel().getByRole('button', { name: 'Stop generating' }).click();
      const stopped = await widget.finishedAnswer(2);
      await expect(stopped.getByText('You stopped this answer.').isVisible()).resolves.toBe(true);
      expect(((await stopped.locator('.docs-chat-markdown').textContent()) ?? '').length).toBeGreaterThan(0);
      await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea' });
      gemini.setDelay(0);
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test(
    'HTML in an answer is shown as text and never executed; tables and links render as markdown',
    async () => {
      gemini.setReply(
        'Try this: <img src="/img/logo.svg" onerror="window.__answerXss = 1" onload="window.__answerXss = 2"> <script>window.__answerXss = 3</script> and **bold** text [1].\n\n' +
          '| Variable | Default |\n| --- | --- |\n| PORT | 8000 |\n\nSee [the intro](/docs/intro), not [this](javascript:window.__answerXss=4).',
      );
      try {
        await widget.launcher().click();
        await ask(QUESTION);
        const answer = await widget.finishedAnswer(1);
        await expect(answer.locator('img, script').count()).resolves.toBe(0);
        await expect(answer.locator('strong').textContent()).resolves.toBe('bold');
        await expect(answer.textContent()).resolves.toContain('<img src="/img/logo.svg"');
        await expect(answer.locator('table td').allTextContents()).resolves.toEqual(['PORT', '8000']);
        await expect(answer.locator('.docs-chat-markdown a[href^="javascript:"]').count()).resolves.toBe(0);
        await expect(answer.getByRole('link', { name: 'the intro' }).getAttribute('href')).resolves.toBe('/docs/intro');
        await expect(page.evaluate(() => (window as unknown as { __answerXss?: number }).__answerXss)).resolves.toBeUndefined();
        await screenshot(page, 'answer-markdown-light');
        expect(pageErrors).toEqual([]);
      } finally {
        gemini.setReply(undefined);
      }
    },
    SLOW,
  );

  // The widget renders in the plugin's Root, above the theme's ColorModeProvider, while the site's
  // @theme/CodeBlock needs one: without the plugin's own provider this crashed the whole page with
  // "Hook ... is called outside the <ColorModeProvider>" (QA bug 1). The code block must also follow
  // the colour mode the reader picks with the navbar toggle, and the system one, without changing it.
  test(
    'a code block in an answer is highlighted by the site CodeBlock with its copy button, follows the colour mode, and the page does not crash',
    async () => {
      gemini.setReply('Run the ingest [1]:\n\n```bash\npnpm docs-chat ingest --docs docs-site/docs\n```\n');
      try {
        await page.emulateMedia({ colorScheme: 'light' });
        await widget.launcher().click();
        await ask(QUESTION);
        // The answer finishes, or Docusaurus' error boundary takes over the page, or the widget's own boundary the panel.
        await page.waitForFunction(
          () =>
            document.body.innerText.includes('This page crashed') ||
            document.querySelector('.docs-chat-panel-failed') !== null ||
            document.querySelector('#docs-chat-panel [aria-busy="false"]') !== null,
          undefined,
          { timeout: 30_000 },
        );
        await screenshot(page, 'answer-code-block-light');
        await expect(page.getByText('This page crashed').count()).resolves.toBe(0);
        await expect(page.locator('.docs-chat-panel-failed').count()).resolves.toBe(0);
        const answer = widget.answers().first();
        await expect(answer.locator('pre code').textContent()).resolves.toContain('pnpm docs-chat ingest --docs docs-site/docs');
        await expect(answer.locator('.theme-code-block').count()).resolves.toBe(1);
        await expect(answer.getByRole('button', { name: /copy code/i }).count()).resolves.toBe(1);
        // Prism's own colours: the site's light theme now, its dark one after the toggle.
        const codeBackground = (): Promise<string> =>
          answer
            .locator('.theme-code-block')
            .evaluate((block) => getComputedStyle(block).getPropertyValue('--prism-background-color').trim().toLowerCase());
        await expect(codeBackground()).resolves.toBe(CODE_BACKGROUND.light);

        // The navbar toggle goes system -> light -> dark: click until the page is dark.
        const toggle = page.getByRole('button', { name: /Switch between dark and light mode/ });
        for (let clicks = 0; clicks < 3 && (await page.evaluate(() => document.documentElement.dataset.theme)) !== 'dark'; clicks += 1)
          await toggle.click();
        await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');
        await page.waitForFunction(
          (background) =>
            getComputedStyle(document.querySelector('#docs-chat-panel .theme-code-block')!)
              .getPropertyValue('--prism-background-color')
              .trim()
              .toLowerCase() === background,
          CODE_BACKGROUND.dark,
          { timeout: 5_000 },
        );
        await screenshot(page, 'answer-code-block-dark');
        await expect(answer.getByRole('button', { name: /copy code/i }).count()).resolves.toBe(1);

        // Next click: back to the system mode (light here), then the system turns dark; the reader's
        // choice stays "system" (the widget never writes the colour mode, it only follows it).
        await toggle.click();
        await expect(page.evaluate(() => document.documentElement.dataset.themeChoice)).resolves.toBe('system');
        await page.waitForFunction(
          (background) =>
            getComputedStyle(document.querySelector('#docs-chat-panel .theme-code-block')!)
              .getPropertyValue('--prism-background-color')
              .trim()
              .toLowerCase() === background,
          CODE_BACKGROUND.light,
          { timeout: 5_000 },
        );
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.waitForFunction(
          (background) =>
            getComputedStyle(document.querySelector('#docs-chat-panel .theme-code-block')!)
              .getPropertyValue('--prism-background-color')
              .trim()
              .toLowerCase() === background,
          CODE_BACKGROUND.dark,
          { timeout: 5_000 },
        );
        await expect(
          page.evaluate(() => ({
            theme: document.documentElement.dataset.theme,
            choice: document.documentElement.dataset.themeChoice,
            stored: localStorage.getItem('theme'),
          })),
        ).resolves.toEqual({
          theme: 'dark',
          choice: 'system',
          stored: null,
        });
        expect(pageErrors).toEqual([]);
      } finally {
        gemini.setReply(undefined);
        await page.emulateMedia({ colorScheme: null });
      }
    },
    SLOW,
  );

  test(
    'closing the panel while an answer streams only hides it: the answer keeps streaming and is whole when the panel reopens; only Stop stops it',
    async () => {
      gemini.setDelay(120);
      try {
        await widget.launcher().click();
        for (const [index, close] of [
          [1, 'Escape'],
          [2, 'Control+i'],
        ] as const) {
          await ask(index === 1 ? QUESTION : 'How do I add the chat widget to my Docusaurus site?');
          await page.waitForFunction((position) => {
            const answers = document.querySelectorAll('#docs-chat-panel [aria-busy]');
            return (answers[position - 1]?.querySelector('.docs-chat-markdown')?.textContent ?? '').length > 0;
          }, index);
          const stream = gemini.lastStream;
          await page.keyboard.press(close);
          await widget.panel().waitFor({ state: 'hidden' });
          // The model's stream ran to its end although nobody could see the panel.
          await expect(stream?.closed).resolves.toBe('completed');
          await page.keyboard.press('Control+i');
          await widget.panel().waitFor({ state: 'visible' });
          const answer = await widget.finishedAnswer(index);
          await expect(answer.getByText('You stopped this answer.').count()).resolves.toBe(0);
          await expect(answer.locator('.docs-chat-markdown').textContent()).resolves.toContain('this stand-in answer cites each of them');
        }
      } finally {
        gemini.setDelay(0);
      }
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test(
    'while searching and streaming the reader hears progress, then the whole answer once',
    async () => {
      gemini.setDelay(150);
      try {
        await widget.launcher().click();
        await widget.panel().waitFor({ state: 'visible' });
        await widget.watchAnnouncements();
        await ask(QUESTION);
        const start = await widget.waitForAnnouncedAnswer(await widget.finishedAnswer(1));
        const heard = await widget.announcements();
        const searching = heard.findIndex((text) => /searching the docs/i.test(text));
        const writing = heard.findIndex((text) => /writing the answer/i.test(text));
        const whole = heard.findIndex((text) => text.replace(/\s+/g, ' ').startsWith(start));
        expect({
          heard,
          order: [searching, writing, whole].every(
            (position, index, all) => position >= 0 && (index === 0 || position > (all[index - 1] ?? 0)),
          ),
        }).toEqual({ heard, order: true });
      } finally {
        gemini.setDelay(0);
      }
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test(
    'links in an answer that leave the site are external, however they are spelled: backslash and protocol-relative forms never become internal links',
    async () => {
      gemini.setReply(
        'Read [m](/\\evil.example) or [p](//evil.example/page) or [t](/\t/evil.example), but [the intro](/docs/intro) stays here [1].',
      );
      try {
        await widget.launcher().click();
        await ask(QUESTION);
        const answer = await widget.finishedAnswer(1);
        const links = await answer.locator('.docs-chat-markdown a').evaluateAll((anchors) =>
          anchors.map((anchor) => ({
            text: anchor.textContent,
            host: (anchor as HTMLAnchorElement).host,
            target: anchor.getAttribute('target'),
            rel: anchor.getAttribute('rel'),
          })),
        );
        const origin = new URL(site.origin).host;
        // Every link is what it looks like to the browser: same-site links (router, same tab) resolve to
        // this site, and every link that resolves elsewhere opens as an external link in a new tab.
        for (const link of links) {
          if (link.host === origin) expect({ link, newTab: link.target === '_blank' }).toEqual({ link, newTab: false });
          else
            expect({ link, external: link.target === '_blank' && (link.rel ?? '').includes('noopener') }).toEqual({ link, external: true });
        }
        expect(links.find((link) => link.text === 'm')).toMatchObject({ host: 'evil.example', target: '_blank' });
        expect(links.find((link) => link.text === 'the intro')).toMatchObject({ host: origin, target: null });
        const before = page.url();
        const evil = answer.locator('.docs-chat-markdown a', { hasText: /^m$/ });
        if ((await evil.count()) > 0) {
          const popup = page
            .context()
            .waitForEvent('page', { timeout: 5000 })
            .catch(() => null);
          await evil.click();
          await (await popup)?.close();
          expect(page.url()).toBe(before);
        }
      } finally {
        gemini.setReply(undefined);
      }
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );

  test('a code answer never makes the panel scroll sideways, at 320 to 1920 px in both colour modes: code blocks and tables scroll inside themselves and the question is never cut', async () => {
    gemini.setReply(CODE_ANSWER);
    gemini.setDelay(0);
    try {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.setViewportSize({ width: 1280, height: 800 });
        await widget.open('/docs/intro');
        await page.evaluate(() => localStorage.removeItem('docs-chat:conversation'));
        await widget.launcher().click();
        await ask(CODE_QUESTION);
        await widget.finishedAnswer(1);
        for (const width of [320, 390, 600, 601, 1024, 1280, 1440, 1920]) {
          await page.setViewportSize({ width, height: width <= 600 ? 844 : 900 });
          await waitForColourMode(page, colorScheme, CODE_BACKGROUND[colorScheme]);
          // The CSS follows the new width at once; aria-modal follows a render later (a media-query listener).
          // Give it up to 5 s, then read the layout either way so a panel that never switches fails below by name.
          await page
            .waitForFunction(
              (modal) => (document.querySelector('#docs-chat-panel')?.getAttribute('aria-modal') === 'true') === modal,
              width <= 600,
              { timeout: 5000 },
            )
            .catch(() => undefined);
          const layout = await readPanelLayout(page);
          const where = `${width} px, ${colorScheme}`;
          expect({ where, sideways: layout.sidewaysScrolling, stickingOut: layout.stickingOut }).toEqual({
            where,
            sideways: [],
            stickingOut: [],
          });
          expect({ where, codeBlocks: layout.codeBlocks.length, longLineScrollsInside: layout.codeBlocks[0]?.scrollsInside }).toEqual({
            where,
            codeBlocks: 2,
            longLineScrollsInside: true,
          });
          for (const block of layout.codeBlocks)
            expect({ where, inside: block.box.left >= layout.panel.left && block.box.right <= layout.panel.right + 1 }).toEqual({
              where,
              inside: true,
            });
          expect({ where, questions: layout.questions.map((question) => question.clipped) }).toEqual({ where, questions: [false] });
          expect({ where, modal: layout.modal, fullWidth: Math.round(layout.panel.width) === width }).toEqual({
            where,
            modal: width <= 600,
            fullWidth: width <= 600,
          });
          if (width >= 320 && [320, 390, 1024, 1280, 1440].includes(width)) await screenshot(page, `code-answer-${width}-${colorScheme}`);
        }
        await page.keyboard.press('Escape');
      }
    } finally {
      gemini.setReply(undefined);
      await page.emulateMedia({ colorScheme: null });
    }
    expect(pageErrors).toEqual([]);
  }, 300_000);

  test('axe finds zero WCAG 2.1 A/AA violations on every docs-site page, in light and dark mode, with the panel open holding an answer with code', async () => {
    const build = readSharedBuild();
    const permalinks = (JSON.parse(fs.readFileSync(build.permalinksFile ?? '', 'utf8')) as { docs: { permalink: string }[] }).docs.map(
      (doc) => doc.permalink,
    );
    const pages = ['/', ...permalinks];
    expect(pages.length).toBeGreaterThan(10);
    gemini.setReply(CODE_ANSWER);
    gemini.setDelay(0);
    const failures: { where: string; violations: AxeViolationSummary[] }[] = [];
    try {
      await page.emulateMedia({ colorScheme: 'light' });
      await widget.open('/docs/intro');
      await page.evaluate(() => localStorage.removeItem('docs-chat:conversation'));
      await widget.launcher().click();
      await ask(CODE_QUESTION);
      await widget.finishedAnswer(1);
      for (const pathname of pages) {
        // A fresh load of each page, with the conversation resumed into the panel; then both colour modes on that
        // load (the site follows the system's preference as it changes, so the page and the answer's code re-style).
        await page.emulateMedia({ colorScheme: 'light' });
        await widget.open(pathname);
        await widget.launcher().click();
        await widget.panel().getByRole('button', { name: 'Resume last conversation' }).click();
        await widget.finishedAnswer(1);
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          await waitForColourMode(page, colorScheme, CODE_BACKGROUND[colorScheme]);
          const violations = await auditAccessibility(page);
          if (violations.length > 0) {
            failures.push({ where: `${pathname} (${colorScheme})`, violations });
            await screenshot(page, `axe-every-page-${colorScheme}${pathname.replace(/\//g, '-')}`);
          }
        }
      }
    } finally {
      gemini.setReply(undefined);
      await page.emulateMedia({ colorScheme: null });
    }
    expect(failures).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 400_000);

  test(
    'with the server down the panel says the assistant is offline and lists the sections that match, and asking again answers once it is back',
    async () => {
      await server.stop();
      await widget.launcher().click();
      await ask(QUESTION);
      const alert = widget.panel().locator('.docs-chat-offline-answer');
      await alert.getByRole('link').first().waitFor({ state: 'visible' });
      await expect(alert.textContent()).resolves.toContain('The assistant is offline right now.');
      await screenshot(page, 'server-down-offline-light');

      server = await startOfflineServer({
        LLM_PROVIDER: 'gemini',
        LLM_MODEL: 'gemini-flash-latest',
        GEMINI_API_KEY: gemini.apiKey,
        GEMINI_BASE_URL: gemini.url,
        EMBEDDING_PROVIDER: 'neural',
      });
      await alert.getByRole('button', { name: 'Ask the assistant again' }).click();
      await alert.waitFor({ state: 'detached' });
      // The Retry button went away with the alert: focus must not fall to the page's body.
      await expect(widget.focused()).resolves.toMatchObject({ tag: 'textarea', name: 'Your question' });
      const answers = widget.answers();
      await page.waitForFunction(() => {
        const all = document.querySelectorAll('#docs-chat-panel [aria-busy]');
        const last = all[all.length - 1];
        return last?.getAttribute('aria-busy') === 'false' && (last.textContent ?? '').includes('Here is what the documentation says');
      });
      await expect(answers.last().textContent()).resolves.toContain('Here is what the documentation says');
      expect(pageErrors).toEqual([]);
    },
    SLOW,
  );
});
