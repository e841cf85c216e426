/**
 * Takes the screenshot of the search dialog shown on the "Search" page of the guide:
 *
 *   node --import tsx docs-site/scripts/search-screenshot.mts [--build DIR]
 *
 * Builds docs-site into a temporary folder (or uses the build in DIR), serves
 * it on 127.0.0.1, opens a page in headless Chromium (Debian's, as the
 * end-to-end suite does), presses Ctrl+K, types a query and writes the
 * picture to docs-site/static/img/search-dialog.png. No chat server runs, so
 * the results come from the static index in the browser, as readers of a
 * site without a server would see them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { launchChromium } from '../e2e/support/chromium.js';
import { findFreePort } from '../e2e/support/free-port.js';
import { SITE_DIR } from '../e2e/support/paths.js';
import { buildDocsSite } from '../e2e/support/site-build.js';
import { serveStaticSite } from '../e2e/support/static-server.js';

const OUTPUT = path.join(SITE_DIR, 'static', 'img', 'search-dialog.png');
const QUERY = 'selection mode';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { build: { type: 'string' } } });
  const workDir = values.build ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'docs-chat-screenshot-'));
  try {
    const buildDir = values.build
      ? path.resolve(values.build)
      : (await buildDocsSite({ workDir: workDir as string, serverUrl: `http://127.0.0.1:${await findFreePort()}` })).buildDir;
    const site = await serveStaticSite(buildDir);
    const chromium = await launchChromium({ viewport: { width: 1200, height: 720 } });
    try {
      const page = await chromium.context.newPage();
      await page.goto(`${site.origin}/docs/guides/using-the-widget`);
      await page.locator('html[data-has-hydrated="true"]').waitFor({ state: 'attached', timeout: 30_000 });
      await page.keyboard.press('Control+K');
      const box = page.getByRole('combobox', { name: 'Search the docs' });
      await box.waitFor({ state: 'visible' });
      await box.pressSequentially(QUERY, { delay: 40 });
      await page.locator('[role="option"][data-kind="hit"]').first().waitFor({ state: 'visible', timeout: 15_000 });
      await page.keyboard.press('ArrowDown');
      await page.screenshot({ path: OUTPUT });
      process.stdout.write(`Wrote ${path.relative(process.cwd(), OUTPUT)} (search for "${QUERY}", results from the static index).\n`);
    } finally {
      await chromium.close();
      await site.close();
    }
  } finally {
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`search-screenshot: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
