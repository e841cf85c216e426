import type { Page } from 'playwright-core';

/** A box on screen, in CSS pixels of the viewport. */
export interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
}

/** How the open panel and the page beside it are laid out, as a reader would notice. */
export interface PanelLayout {
  viewport: { width: number; height: number };
  /** aria-modal of the panel. */
  modal: boolean;
  /** Whether the page's main content is inert (cannot be reached or clicked). */
  pageInert: boolean;
  /** How the widget placed the panel: 'push' (the page reflows beside it), 'overlay' or 'full-screen'. */
  layout: string | null;
  panel: Box;
  /** Sideways scrolling where there must be none: the panel, the conversation, each message. */
  sidewaysScrolling: { element: string; scrollWidth: number; clientWidth: number }[];
  /** Elements that stick out of the conversation's right edge (outside code blocks and tables, which scroll inside). */
  stickingOut: { element: string; right: number; limit: number }[];
  /** Every code block of the answers: its box and whether its content is wider than it (then it scrolls inside). */
  codeBlocks: { box: Box; scrollsInside: boolean }[];
  /** The reader's question bubbles: whether their text is cut. */
  questions: { box: Box; clipped: boolean }[];
  /** The docs article beside the panel, when the page has one. */
  article: Box | null;
  /** Whether the navbar's colour mode toggle is uncovered (null where the navbar hides it behind its menu). */
  colourToggleUncovered: boolean | null;
}

/** Reads the layout of the open panel; everything is measured in the page, nothing assumed. */
export function readPanelLayout(page: Page): Promise<PanelLayout> {
  return page.evaluate(() => {
    const boxOf = (element: Element): Box => {
      const rect = element.getBoundingClientRect();
      return { left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom, width: rect.width };
    };
    const describe = (element: Element): string =>
      `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? `.${element.className.trim().split(/\s+/).join('.')}` : ''}`;
    const panel = document.getElementById('docs-chat-panel');
    if (!panel) throw new Error('The chat panel is not in the page.');
    const scroller = panel.querySelector('.docs-chat-messages');
    const sideways = [panel, scroller, ...panel.querySelectorAll('.docs-chat-messages > ol > li, .docs-chat-markdown')]
      .filter((element): element is Element => element !== null)
      .filter((element) => element.scrollWidth > element.clientWidth + 1)
      .map((element) => ({ element: describe(element), scrollWidth: element.scrollWidth, clientWidth: element.clientWidth }));
    const limit = scroller ? scroller.getBoundingClientRect().right : panel.getBoundingClientRect().right;
    const stickingOut = [...panel.querySelectorAll('.docs-chat-messages *')]
      .filter(
        (element) =>
          !element.closest('pre, .docs-chat-table-scroll') ||
          element.matches('.docs-chat-table-scroll') ||
          (element.matches('pre') && !element.parentElement?.closest('pre')),
      )
      .map((element) => ({ element: describe(element), right: element.getBoundingClientRect().right, limit }))
      .filter((entry) => entry.right > entry.limit + 1);
    const codeBlocks = [...panel.querySelectorAll('.docs-chat-markdown pre')].map((pre) => ({
      box: boxOf(pre),
      scrollsInside: pre.scrollWidth > pre.clientWidth,
    }));
    const questions = [...panel.querySelectorAll('.docs-chat-messages > ol > li p')]
      .filter((paragraph) => !paragraph.closest('.docs-chat-markdown') && !paragraph.closest('[aria-busy]'))
      .map((paragraph) => {
        const bubble = paragraph.parentElement as Element;
        return {
          box: boxOf(bubble),
          clipped: bubble.scrollWidth > bubble.clientWidth + 1 || bubble.getBoundingClientRect().right > limit + 1,
        };
      });
    const article = document.querySelector('main article');
    const toggle = document.querySelector(
      '.navbar button[title*="dark and light mode" i], .navbar button[aria-label*="dark and light mode" i]',
    );
    let colourToggleUncovered: boolean | null = null;
    if (toggle) {
      const rect = toggle.getBoundingClientRect();
      if (rect.width > 0 && rect.height > 0) {
        const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
        colourToggleUncovered = Boolean(hit && toggle.contains(hit));
      }
    }
    const main = document.querySelector('main');
    return {
      viewport: { width: window.innerWidth, height: window.innerHeight },
      modal: panel.getAttribute('aria-modal') === 'true',
      pageInert: Boolean(main?.closest('[inert]')),
      layout: document.documentElement.dataset.docsChatLayout ?? null,
      panel: boxOf(panel),
      sidewaysScrolling: sideways,
      stickingOut,
      codeBlocks,
      questions,
      article: article ? boxOf(article) : null,
      colourToggleUncovered,
    };
  });
}

/**
 * Waits until the page's colour mode is `mode` and every code block (in the page and in the panel)
 * carries that mode's colours: after a load in dark mode, code blocks keep the light theme's
 * colours for a moment after hydration, and an audit in that moment measures the wrong colours.
 */
export async function waitForColourMode(page: Page, mode: 'light' | 'dark', codeBackground: string): Promise<void> {
  await page.waitForFunction(
    ({ mode, codeBackground }) => {
      if (document.documentElement.dataset.theme !== mode) return false;
      return [...document.querySelectorAll('.theme-code-block')].every(
        (block) => getComputedStyle(block).getPropertyValue('--prism-background-color').trim().toLowerCase() === codeBackground,
      );
    },
    { mode, codeBackground },
    { timeout: 15_000 },
  );
}
