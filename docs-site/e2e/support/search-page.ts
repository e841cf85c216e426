import type { Locator, Page } from 'playwright-core';

/** The navbar search as a reader meets it in the built site: its button, dialog, box and results. */
export class SearchPage {
  constructor(
    readonly page: Page,
    /** Origin plus base URL, e.g. http://127.0.0.1:41234/handbook/ */
    readonly siteUrl: string,
  ) {}

  /** Loads a page (a path below the base URL) and waits until React has hydrated it. */
  async open(pathBelowBase: string): Promise<void> {
    await this.page.goto(new URL(pathBelowBase.replace(/^\//, ''), this.siteUrl).href);
    await this.page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached', timeout: 30_000 });
  }

  button(): Locator {
    return this.page.getByRole('button', { name: /^Search \(/ });
  }

  dialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Search the docs' });
  }

  box(): Locator {
    return this.dialog().getByRole('combobox', { name: 'Search the docs' });
  }

  /** The section results (not the "Ask the docs" row). */
  results(): Locator {
    return this.dialog().locator('[role="option"][data-kind="hit"]');
  }

  async openWithShortcut(): Promise<void> {
    await this.page.keyboard.press('Control+K');
    await this.box().waitFor({ state: 'visible' });
  }

  /** Types like a reader, key by key, and waits for the first section result. */
  async type(query: string): Promise<void> {
    await this.box().pressSequentially(query, { delay: 15 });
    await this.results().first().waitFor({ state: 'visible', timeout: 15_000 });
  }

  /** Which engine answered the last search: "server" (GET /search) or "static" (the index in the browser). */
  async source(): Promise<string | null> {
    return this.dialog().getAttribute('data-search-source');
  }
}

/** Where the reader ends up after following a result: the page, the element the hash names, and whether it is on screen. */
export async function landing(page: Page): Promise<{ pathname: string; hash: string; tag: string | null; onScreen: boolean }> {
  return page.evaluate(() => {
    const hash = decodeURIComponent(location.hash.slice(1));
    const target = hash ? document.getElementById(hash) : null;
    const rect = target?.getBoundingClientRect();
    return {
      pathname: location.pathname,
      hash,
      tag: target?.tagName.toLowerCase() ?? null,
      onScreen: Boolean(rect && rect.height > 0 && rect.top >= 0 && rect.bottom <= window.innerHeight),
    };
  });
}

/** Waits until the URL has a hash and the element it names has scrolled into view. */
export async function waitForAnchor(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
      const rect = target?.getBoundingClientRect();
      return Boolean(rect && rect.top >= 0 && rect.bottom <= window.innerHeight);
    },
    undefined,
    { timeout: 15_000 },
  );
}
