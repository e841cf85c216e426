/**
 * Records the insights page's test fixture and the user guide's screenshot:
 * `node --import tsx eval/src/insights-screenshot.ts`
 *
 * 1. Indexes docs-site/docs (local embedder) in a temporary DATA_DIR and stores a
 *    week of questions in an embedded conversation database, answered with the
 *    sections the retriever finds (refused ones with none, some voted down).
 * 2. Builds the report with the server's code (as GET /admin/insights does) and
 *    writes it to packages/docusaurus-plugin/src/insights/__fixtures__/insights-report.json.
 * 3. Bundles the insights page with esbuild, serves it and the report, and takes a
 *    screenshot in Chromium (/usr/bin/chromium or CHROMIUM_PATH) to
 *    docs-site/static/img/insights-page.png.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { loadCoreConfig, openRetrieval, runIngest } from '@docs-chat/core';
import type { SourceRef } from '@docs-chat/core/protocol';
import { createConversationStore } from '../../packages/server/src/conversations/create-conversation-store.js';
import { openPgliteDatabase } from '../../packages/server/src/conversations/pglite-conversation-store.js';
import { buildInsightsReport, parsePeriod } from '../../packages/server/src/insights/insights-report.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = path.join(ROOT, 'packages/docusaurus-plugin/src/insights/__fixtures__/insights-report.json');
const SCREENSHOT = path.join(ROOT, 'docs-site/static/img/insights-page.png');
const SITE = '';

// [question, times asked over the week, voted down?]
const ASKED: [string, number, boolean][] = [
  ['How do I add the chat widget to my Docusaurus site?', 14, false],
  ['how to add docs-chat to docusaurus', 6, false],
  ['Which environment variables does the server read?', 9, false],
  ['How do I keep conversations in Postgres?', 7, true],
  ['Can I run docs-chat without a Gemini API key?', 8, false],
  ['How do I re-index the docs after a change?', 5, false],
  ['How do I search an older version of the docs?', 4, true],
  ['How do I deploy with Docker Compose?', 6, false],
  ['Does docs-chat work with Confluence?', 5, false],
  ['Can I export the chat history to Slack?', 4, false],
  ['Is there a WordPress plugin?', 3, false],
  ['How much does the hosted plan cost?', 2, false],
];
const REFUSED = new Set([
  'Does docs-chat work with Confluence?',
  'Can I export the chat history to Slack?',
  'Is there a WordPress plugin?',
  'How much does the hosted plan cost?',
]);

const dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-insights-shot-'));
try {
  const env = { DATA_DIR: dataDir, DOCS_DIR: path.join(ROOT, 'docs-site/docs'), EMBEDDING_PROVIDER: 'local', VECTOR_STORE: 'embedded' };
  await runIngest(loadCoreConfig(env));
  const retrieval = await openRetrieval(loadCoreConfig(env));
  const store = await createConversationStore({ dataDir });
  await store.migrate();
  const now = new Date('2026-11-24T12:00:00Z');
  for (const [question, times, down] of ASKED) {
    const response = await retrieval.retriever.search(question, { k: 2 });
    const sources: SourceRef[] = response.hits.map((hit) => ({
      file: hit.chunk.file,
      title: hit.chunk.title,
      heading: hit.chunk.headingPath.at(-1) ?? null,
      heading_path: hit.chunk.headingPath,
      url: hit.chunk.url,
      score: hit.score,
    }));
    for (let time = 0; time < times; time += 1) {
      const conversationId = randomUUID();
      const answerId = randomUUID();
      await store.startTurn({
        conversationId,
        newConversation: true,
        mode: 'general',
        question: { id: randomUUID(), content: question },
        answerId,
      });
      const refused = REFUSED.has(question);
      await store.finishMessage(answerId, {
        content: refused ? 'The documentation does not cover this.' : `See ${sources[0]?.title ?? 'the docs'} [1].`,
        status: 'complete',
        sources: refused ? [] : sources,
        finishReason: refused ? 'no_answer' : 'stop',
        usage: null,
      });
      if (down && time === 0) await store.addFeedback({ messageId: answerId, rating: 'down', reason: 'Did not say which variable to set' });
      else if (!refused && time % 3 === 0) await store.addFeedback({ messageId: answerId, rating: 'up' });
    }
  }
  for (const page of ['/docs/reference/configuration', '/docs/getting-started/quick-start', '/docs/reference/configuration']) {
    await store.startTurn({
      conversationId: randomUUID(),
      newConversation: true,
      mode: 'selection',
      question: { id: randomUUID(), content: 'What does this mean?' },
      answerId: randomUUID(),
      page: { url: `${SITE}${page}`, title: page.endsWith('configuration') ? 'Configuration' : 'Quick start' },
    });
  }
  await store.close();

  // Spread the questions over the last seven days (the store stamps rows with now()).
  const db = await openPgliteDatabase(dataDir);
  await db.query(`update messages set created_at = $1::timestamptz - ((seq * 7919) % 604800) * interval '1 second'`, [now.toISOString()]);
  await db.query(`update feedback set updated_at = m.created_at from messages m where m.id = feedback.message_id`);
  await db.close();

  const reopened = await createConversationStore({ dataDir });
  const period = parsePeriod('7d');
  if ('error' in period) throw new Error(period.error);
  const report = await buildInsightsReport(
    { conversations: reopened, embedder: retrieval.embedder, retriever: retrieval.retriever, now: () => now },
    period,
  );
  await reopened.close();
  await retrieval.close();
  await mkdir(path.dirname(FIXTURE), { recursive: true });
  await writeFile(FIXTURE, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(ROOT, FIXTURE)} (${report.totals.questions} questions)\n`);

  // The page alone, bundled for the browser, against the recorded report.
  const outDir = path.join(dataDir, 'page');
  const entry = path.join(dataDir, 'entry.tsx');
  await writeFile(
    entry,
    `import React from 'react';
import { createRoot } from 'react-dom/client';
import 'uplot/dist/uPlot.min.css';
import { InsightsPage } from ${JSON.stringify(path.join(ROOT, 'packages/docusaurus-plugin/src/insights/InsightsPage.tsx'))};
createRoot(document.getElementById('root')).render(<InsightsPage serverUrl={location.origin} />);
`,
  );
  await build({
    entryPoints: [entry],
    bundle: true,
    outdir: outDir,
    format: 'esm',
    splitting: true,
    loader: { '.module.css': 'local-css' },
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    nodePaths: [path.join(ROOT, 'packages/docusaurus-plugin/node_modules')],
    logLevel: 'warning',
  });
  const html = `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/entry.css">
<style>body{font-family:system-ui,sans-serif;margin:0;color:#1c1e21}table{border-collapse:collapse}th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}a{color:#2e8555}</style>
</head><body><div id="root"></div><script type="module" src="/entry.js"></script></body></html>`;
  const { readFile } = await import('node:fs/promises');
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/admin/insights') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report));
      return;
    }
    if (url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(html);
      return;
    }
    readFile(path.join(outDir, path.normalize(url.pathname))).then(
      (body) => response.writeHead(200, { 'content-type': url.pathname.endsWith('.css') ? 'text/css' : 'text/javascript' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
    await page.addInitScript("window.sessionStorage.setItem('docs-chat:insights-token', 'demo-token')");
    await page.goto(origin);
    await page.waitForSelector('canvas');
    await page.waitForTimeout(300);
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    process.stdout.write(`wrote ${path.relative(ROOT, SCREENSHOT)}\n`);
  } finally {
    await browser.close();
    server.close();
  }
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
