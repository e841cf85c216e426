/**
 * Regenerates the widget guide's pictures (docs-site/static/img/widget/): the chat panel holding
 * an answer with code, at 390 px (a phone) and 1280 px (a laptop).
 *
 *   node --import tsx docs-site/e2e/screenshots.ts
 *
 * It builds docs-site and ingests its docs in a temporary folder, as the end-to-end suite does,
 * serves the build, and starts the real docs-chat server on Gemini answered by the local Gemini
 * stand-in (so the answer is a realistic one, with code blocks and a table), then drives
 * Debian's Chromium. Everything runs on 127.0.0.1 and is removed afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGeminiStandIn } from '@docs-chat/stand-ins';
import { ingestDocs, startChatServer } from './support/chat-server.js';
import { launchChromium } from './support/chromium.js';
import { CODE_ANSWER, CODE_QUESTION } from './support/code-answer.js';
import { findFreePort } from './support/free-port.js';
import { waitForColourMode } from './support/panel-layout.js';
import { SITE_DIR } from './support/paths.js';
import { buildDocsSite } from './support/site-build.js';
import { serveStaticSite } from './support/static-server.js';
import { WidgetPage } from './support/widget-page.js';

const OUTPUT_DIR = path.join(SITE_DIR, 'static', 'img', 'widget');
/** The page the pictures show beside the panel, and each picture's viewport. */
const PAGE = '/docs/reference/configuration';
const SHOTS = [
  { file: 'panel-code-answer-390.png', viewport: { width: 390, height: 844 } },
  { file: 'panel-code-answer-1280.png', viewport: { width: 1280, height: 800 } },
];

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-chat-screenshots-'));
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const serverPort = await findFreePort();
    const build = await buildDocsSite({ workDir, serverUrl: `http://127.0.0.1:${serverPort}` });
    const dataDir = path.join(workDir, 'data');
    await ingestDocs({ dataDir, docsDir: build.docsDir, permalinksFile: build.permalinksFile, logFile: path.join(workDir, 'ingest.log') });
    const site = await serveStaticSite(build.buildDir);
    cleanups.push(() => site.close());
    const gemini = await startGeminiStandIn({ replyText: CODE_ANSWER, wordsPerEvent: 50 });
    cleanups.push(() => gemini.close());
    const server = await startChatServer({
      dataDir,
      port: serverPort,
      corsOrigin: site.origin,
      logFile: path.join(workDir, 'chat-server.log'),
      extraEnv: {
        LLM_PROVIDER: 'gemini',
        LLM_MODEL: 'gemini-flash-latest',
        GEMINI_API_KEY: gemini.apiKey,
        GEMINI_BASE_URL: gemini.url,
        EMBEDDING_PROVIDER: 'local',
      },
    });
    cleanups.push(() => server.stop());
    const chromium = await launchChromium({ colorScheme: 'light' });
    cleanups.push(() => chromium.close());

    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    for (const shot of SHOTS) {
      const page = await chromium.context.newPage();
      await page.setViewportSize(shot.viewport);
      const widget = new WidgetPage(page, site.origin);
      await widget.open(PAGE);
      await page.evaluate(() => localStorage.clear());
      await widget.launcher().click();
      await widget.questionBox().fill(CODE_QUESTION);
      await widget.questionBox().press('Enter');
      await widget.finishedAnswer(1);
      await waitForColourMode(page, 'light', '#f6f8fa');
      // Show the question at the top, with the start of the answer and its first code block under it.
      await page.evaluate(() =>
        document.querySelector('#docs-chat-panel .docs-chat-messages > ol > li')?.scrollIntoView({ block: 'start' }),
      );
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const file = path.join(OUTPUT_DIR, shot.file);
      await page.screenshot({ path: file });
      process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
      await page.close();
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`screenshots: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
