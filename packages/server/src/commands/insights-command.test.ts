import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import type { InsightsReport } from '../insights/insights-report.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const cli = path.join(root, 'packages/server/src/cli.ts');
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');

function docsChat(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [tsx, cli, ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

describe('docs-chat insights', () => {
  let workDir: string;

  beforeEach(async () => {
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-insights-'));
  });
  afterEach(async () => {
    await fs.rm(workDir, { recursive: true, force: true });
  });

  it('prints an empty state, not an error, for a DATA_DIR where nobody asked anything yet', async () => {
    const result = await docsChat(['insights'], { DATA_DIR: workDir, EMBEDDING_PROVIDER: 'local' });
    expect(result.stderr).toMatch(/index cannot be opened/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/No questions were asked in this period/);
  }, 60_000);

  it('refuses a period outside 1h..365d with exit code 2 and the allowed range', async () => {
    const result = await docsChat(['insights', '--since', '400d'], { DATA_DIR: workDir, EMBEDDING_PROVIDER: 'local' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/from 1h to 365d/);
  }, 60_000);

  it('reads the stored conversations of DATA_DIR as JSON and as CSV, with reader text made safe for spreadsheets', async () => {
    const store = await createConversationStore({ dataDir: workDir });
    await store.migrate();
    const conversationId = randomUUID();
    const questions = ['=HYPERLINK("x") how do refunds work?', 'How do I install it?', 'how do I install it?'];
    for (const [position, question] of questions.entries()) {
      const answerId = randomUUID();
      await store.startTurn({
        conversationId,
        newConversation: position === 0,
        mode: 'general',
        question: { id: randomUUID(), content: question },
        answerId,
      });
      const refused = position === 0;
      await store.finishMessage(answerId, {
        content: refused ? 'The documentation does not cover this.' : 'Run npm install [1].',
        status: 'complete',
        sources: refused
          ? []
          : [
              {
                file: 'guides/installation.md',
                title: 'Installation',
                heading: null,
                heading_path: ['Installation'],
                url: 'https://docs.example.com/docs/guides/installation#npm',
                score: 0.9,
              },
            ],
        finishReason: refused ? 'no_answer' : 'stop',
        usage: null,
      });
    }
    await store.close();

    const json = await docsChat(['insights', '--since', '1h', '--json'], { DATA_DIR: workDir, EMBEDDING_PROVIDER: 'local' });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as InsightsReport;
    expect(report.totals).toMatchObject({ questions: 3, answered: 2, refused: 1 });
    expect(report.top_questions[0]).toMatchObject({ count: 2 });
    expect(report.gaps.map((gap) => gap.question)).toEqual(['=HYPERLINK("x") how do refunds work?']);
    expect(report.pages.most_cited).toEqual([
      { url: 'https://docs.example.com/docs/guides/installation', title: 'Installation', file: 'guides/installation.md', citations: 2 },
    ]);
    expect(json.stdout).not.toContain(conversationId);

    const csv = await docsChat(['insights', '--since', '1h', '--csv'], { DATA_DIR: workDir, EMBEDDING_PROVIDER: 'local' });
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\r\n');
    expect(lines[0]).toBe('section,label,count,answered,refused,errors,url,file');
    expect(lines).toContain(`gap,"'=HYPERLINK(""x"") how do refunds work?",1,,,,,`);
    expect(lines).toContain('most_cited_page,Installation,2,,,,https://docs.example.com/docs/guides/installation,guides/installation.md');
  }, 90_000);

  it("reads through a running server's embedded database instead of being refused, and leaves it running", async () => {
    // Opened as `docs-chat serve` opens it: PGlite in a process of its own, holding DATA_DIR.
    const server = await createConversationStore({ dataDir: workDir, pgliteProcess: true });
    try {
      await server.migrate();
      const answerId = randomUUID();
      await server.startTurn({
        conversationId: randomUUID(),
        newConversation: true,
        mode: 'general',
        question: { id: randomUUID(), content: 'How do I rotate the logs?' },
        answerId,
      });
      await server.finishMessage(answerId, {
        content: 'Not covered.',
        status: 'complete',
        sources: [],
        finishReason: 'no_answer',
        usage: null,
      });

      const json = await docsChat(['insights', '--since', '1h', '--json'], { DATA_DIR: workDir, EMBEDDING_PROVIDER: 'local' });
      expect(json.stderr).not.toMatch(/in use|could not/);
      expect(json.code).toBe(0);
      expect((JSON.parse(json.stdout) as InsightsReport).totals).toMatchObject({ questions: 1, refused: 1 });
      await server.ping(2_000);
    } finally {
      await server.close();
    }
  }, 90_000);
});
