import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { E2E_ARTIFACTS_DIR } from './paths.js';

/** The panel title docs-site configures (docusaurus.config.ts, plugin option `title`). */
export const PANEL_TITLE = 'Ask the docs-chat guide';

/** What a page of the built site offers the tests: the widget's parts by role and name, as a reader meets them. */
export class WidgetPage {
  constructor(
    readonly page: Page,
    readonly origin: string,
  ) {}

  /** Loads a page and waits until React has hydrated it (before that, the launcher is inert HTML). */
  async open(pathname: string): Promise<void> {
    await this.page.goto(`${this.origin}${pathname}`);
    await this.page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached', timeout: 30_000 });
  }

  launcher(): Locator {
    return this.page.getByRole('button', { name: /^Ask the docs/ });
  }

  panel(): Locator {
    return this.page.getByRole('dialog', { name: PANEL_TITLE });
  }

  questionBox(): Locator {
    return this.panel().getByRole('textbox', { name: 'Your question' });
  }

  answers(): Locator {
    return this.panel().locator('[aria-busy]');
  }

  /** Waits for the newest answer to finish streaming and returns its element. */
  async finishedAnswer(count: number): Promise<Locator> {
    await this.page.waitForFunction(
      (expected) => {
        const answers = document.querySelectorAll('#docs-chat-panel [aria-busy]');
        return answers.length >= expected && answers[expected - 1]?.getAttribute('aria-busy') === 'false';
      },
      count,
      { timeout: 60_000 },
    );
    // An answer that ended in an error is not an answer: say so instead of letting a test audit or
    // inspect an error state (tests about errors wait for the alert themselves).
    const alerts = await this.panel().getByRole('alert').allTextContents();
    if (alerts.length > 0) throw new Error(`Answer ${count} ended with an error in the panel: ${alerts.join(' | ')}`);
    return this.answers().nth(count - 1);
  }

  /**
   * Records, on every DOM change in the panel, how much answer text is shown
   * and whether the answer is still streaming: read back by streamObservations().
   */
  async watchAnswerText(): Promise<void> {
    await this.page.evaluate(() => {
      const log: { length: number; streaming: boolean }[] = [];
      (window as unknown as { __answerLog: typeof log }).__answerLog = log;
      const panel = document.getElementById('docs-chat-panel');
      if (!panel) throw new Error('The chat panel is not in the page.');
      const record = (): void => {
        const answers = panel.querySelectorAll('[aria-busy]');
        const last = answers[answers.length - 1];
        const text = last?.querySelector('.docs-chat-markdown')?.textContent ?? '';
        log.push({ length: text.length, streaming: last?.getAttribute('aria-busy') === 'true' });
      };
      new MutationObserver(record).observe(panel, { subtree: true, childList: true, characterData: true, attributes: true });
    });
  }

  /**
   * Records every text that appears in the panel's live regions (what a screen reader announces),
   * in order, into window.__announcements.
   */
  async watchAnnouncements(): Promise<void> {
    await this.page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __announcements: string[] }).__announcements = seen;
      const panel = document.getElementById('docs-chat-panel');
      if (!panel) throw new Error('The chat panel is not in the page.');
      const record = (): void => {
        for (const region of panel.querySelectorAll('[aria-live]')) {
          const text = (region.textContent ?? '').trim();
          if (text !== '' && seen[seen.length - 1] !== text) seen.push(text);
        }
      };
      new MutationObserver(record).observe(panel, { subtree: true, childList: true, characterData: true });
    });
  }

  /**
   * Waits (up to 10 s) until a live region has announced the finished `answer`, recognised by its first 30
   * characters (spaces folded); returns them. Needs watchAnnouncements() first.
   */
  async waitForAnnouncedAnswer(answer: Locator): Promise<string> {
    const start = ((await answer.locator('.docs-chat-markdown').textContent()) ?? '').replace(/\s+/g, ' ').trim().slice(0, 30);
    await this.page.waitForFunction(
      (text) =>
        (window as unknown as { __announcements: string[] }).__announcements.some((seen) => seen.replace(/\s+/g, ' ').startsWith(text)),
      start,
      { timeout: 10_000 },
    );
    return start;
  }

  async announcements(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { __announcements: string[] }).__announcements);
  }

  async streamObservations(): Promise<{ length: number; streaming: boolean }[]> {
    return this.page.evaluate(() => (window as unknown as { __answerLog: { length: number; streaming: boolean }[] }).__answerLog);
  }

  /** Accessible name of the focused element (aria-label, label text or own text), with its tag. */
  async focused(): Promise<{ tag: string; name: string; insidePanel: boolean; isLauncher: boolean }> {
    return this.page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element) return { tag: '', name: '', insidePanel: false, isLauncher: false };
      const labelled = element.getAttribute('aria-labelledby');
      const byLabel = element.id ? document.querySelector(`label[for="${CSS.escape(element.id)}"]`)?.textContent : null;
      // Own text as assistive technology reads it: without the parts hidden from it.
      const visibleText = (): string => {
        const copy = element.cloneNode(true) as HTMLElement;
        for (const hidden of copy.querySelectorAll('[aria-hidden="true"]')) hidden.remove();
        return copy.textContent ?? '';
      };
      const name =
        element.getAttribute('aria-label') ??
        (labelled ? document.getElementById(labelled)?.textContent : null) ??
        byLabel ??
        visibleText();
      return {
        tag: element.tagName.toLowerCase(),
        name: name.replace(/\s+/g, ' ').trim(),
        insidePanel: Boolean(element.closest('#docs-chat-panel')),
        isLauncher: element.classList.contains('docs-chat-launcher'),
      };
    });
  }
}

/** Where the suite keeps its screenshots (gitignored test artifacts). */
export const SCREENSHOT_DIR = path.join(E2E_ARTIFACTS_DIR, 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

const require = createRequire(import.meta.url);
const AXE_SOURCE_FILE = require.resolve('axe-core/axe.min.js');

export interface AxeViolationSummary {
  rule: string;
  impact: string | null;
  help: string;
  targets: string[];
  detail: string;
}

/**
 * Runs axe-core in the page against WCAG 2.0/2.1 levels A and AA (the issue's
 * bar), and returns the violations in a form a failing assertion can print.
 */
export async function auditAccessibility(page: Page): Promise<AxeViolationSummary[]> {
  const hasAxe = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  if (!hasAxe) await page.addScriptTag({ path: AXE_SOURCE_FILE });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((violation) => ({
      rule: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.map(String).join(' ')),
      detail: violation.nodes
        .map((node) => node.failureSummary ?? '')
        .join(' | ')
        .slice(0, 600),
    }));
  });
}
