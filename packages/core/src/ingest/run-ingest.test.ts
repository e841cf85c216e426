import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGeminiStandIn, type GeminiStandIn } from '@docs-chat/stand-ins';
import { loadCoreConfig } from '../config.js';
import { openRetrieval, runIngest } from '../runtime.js';
import { DocsChatError } from '../errors.js';

const PAGES: Record<string, string> = {
  'intro.md':
    '---\ntitle: Welcome\n---\n\nThe orbital scheduler plans satellite passes.\n\n## Installing the scheduler\n\nRun the installer with the flag `--orbit`.\n',
  'guides/telemetry.mdx':
    "import Tabs from '@theme/Tabs';\n\n# Telemetry\n\n## Reading telemetry frames\n\nFrames arrive every second from the ground station.\n\n## Storing telemetry\n\nFrames are kept for thirty days in the archive.\n",
  'guides/alerts.md': '# Alerts\n\n## Paging the on-call astronaut\n\nAlerts page the astronaut through the pager gateway.\n',
};

async function writePages(docsDir: string, pages: Record<string, string | Uint8Array>): Promise<void> {
  for (const [file, content] of Object.entries(pages)) {
    await fs.mkdir(path.dirname(path.join(docsDir, file)), { recursive: true });
    await fs.writeFile(path.join(docsDir, file), content);
  }
}

describe('incremental ingest', () => {
  let workDir: string;
  let docsDir: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-ingest-'));
    docsDir = path.join(workDir, 'docs');
    await writePages(docsDir, PAGES);
    env = { DATA_DIR: path.join(workDir, 'data'), EMBEDDING_PROVIDER: 'local' };
  });
  afterEach(async () => {
    await fs.rm(workDir, { recursive: true, force: true });
  });

  const ingest = (options: Parameters<typeof runIngest>[1] = {}) => runIngest(loadCoreConfig(env), { docsDir, ...options });

  async function topFileFor(question: string): Promise<string | undefined> {
    const retrieval = await openRetrieval(loadCoreConfig(env));
    try {
      return (await retrieval.retriever.search(question)).hits[0]?.chunk.file;
    } finally {
      await retrieval.close();
    }
  }

  it('indexes every page on the first run and reports what it did', async () => {
    const report = await ingest();
    expect(report.files).toMatchObject({ total: 3, added: 3, modified: 0, deleted: 0, unchanged: 0, failed: [] });
    expect(report.chunks.added).toBe(report.chunks.total);
    expect(report.chunks.total).toBeGreaterThanOrEqual(5);
    expect(report.embedding.calls).toBeGreaterThan(0);
    expect(await topFileFor('how are telemetry frames stored')).toBe('guides/telemetry.mdx');
  });

  it('makes zero embedding calls when nothing changed', async () => {
    await ingest();
    const again = await ingest();
    expect(again.files).toMatchObject({ added: 0, modified: 0, deleted: 0, unchanged: 3 });
    expect(again.chunks).toMatchObject({ added: 0, updated: 0, deleted: 0 });
    expect(again.embedding).toEqual({ calls: 0, texts: 0, cacheHits: 0 });
  });

  it('re-embeds only what changed and removes the chunks of deleted files and removed sections', async () => {
    const first = await ingest();
    await fs.writeFile(
      path.join(docsDir, 'guides/telemetry.mdx'),
      '# Telemetry\n\n## Reading telemetry frames\n\nFrames arrive every second from the ground station.\n\n## Compressing telemetry\n\nFrames are squeezed with zstd before upload.\n',
    );
    await fs.rm(path.join(docsDir, 'guides/alerts.md'));
    await writePages(docsDir, { 'guides/weather.md': '# Weather\n\n## Solar storms\n\nStorms delay uplinks by hours.\n' });

    const second = await ingest();
    expect(second.files).toMatchObject({ added: 1, modified: 1, deleted: 1, unchanged: 1 });
    // The unchanged "Reading telemetry frames" section came from the cache.
    expect(second.embedding.cacheHits).toBeGreaterThanOrEqual(1);
    expect(second.embedding.texts).toBeLessThan(first.embedding.texts);
    expect(second.chunks.deleted).toBeGreaterThanOrEqual(2);
    expect(await topFileFor('paging the on-call astronaut')).not.toBe('guides/alerts.md');
    expect(await topFileFor('solar storms delaying uplinks')).toBe('guides/weather.md');
    const retrieval = await openRetrieval(loadCoreConfig(env));
    try {
      const stored = await retrieval.store.listFiles();
      expect(stored.map((state) => state.file).sort()).toEqual(['guides/telemetry.mdx', 'guides/weather.md', 'intro.md']);
      const telemetry = await retrieval.store.getByFile('guides/telemetry.mdx');
      expect(telemetry.map((chunk) => chunk.heading)).not.toContain('Storing telemetry');
    } finally {
      await retrieval.close();
    }
  });

  it('skips unreadable files with their reason and survives malformed, empty and huge ones', async () => {
    await writePages(docsDir, {
      'binary.md': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a]),
      'latin1.md': new Uint8Array([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a]),
      'empty.md': '',
      'malformed.mdx': '# Broken\n\n<Tabs>\n<TabItem value="a">\n\n```js\nunclosed(\n\n:::tip never closed\n\n{ this is not js\n',
      'huge.md': `# Huge\n\n${Array.from({ length: 4000 }, (_, i) => `## Section ${i}\n\nParagraph ${i} about widgets and gadgets number ${i}.\n`).join('\n')}`,
    });
    const report = await ingest();
    expect(report.files.skipped.map((entry) => entry.file).sort()).toEqual(['binary.md', 'latin1.md']);
    for (const entry of report.files.skipped) expect(entry.reason).toMatch(/binary|UTF-8/i);
    expect(report.files.failed).toEqual([]);
    expect(report.files.added).toBe(6);
    expect(await topFileFor('widgets and gadgets number 3999')).toBe('huge.md');
  });

  it('leaves out draft and unlisted pages, and removes a page from the index once it is made a draft', async () => {
    await writePages(docsDir, {
      'roadmap.md': '---\ntitle: Roadmap\ndraft: true\n---\n\n## Lunar relay\n\nThe lunar relay ships next spring.\n',
      'internal.md':
        '---\nunlisted: true\n---\n\n# Internal\n\n## Ground station passwords\n\nRotate the ground station passwords monthly.\n',
    });
    const report = await ingest();
    expect(report.files.skipped).toEqual([
      { file: 'internal.md', reason: expect.stringContaining('unlisted') },
      { file: 'roadmap.md', reason: expect.stringContaining('draft') },
    ]);
    expect(report.files.added).toBe(3);
    expect(await topFileFor('when does the lunar relay ship')).not.toBe('roadmap.md');
    expect(await topFileFor('rotate the ground station passwords')).not.toBe('internal.md');

    // A published page turned into a draft goes from the index at the next ingest.
    expect(await topFileFor('paging the on-call astronaut')).toBe('guides/alerts.md');
    await writePages(docsDir, { 'guides/alerts.md': `---\ndraft: true\n---\n\n${PAGES['guides/alerts.md']}` });
    const again = await ingest();
    expect(again.files.deleted).toBe(1);
    expect(await topFileFor('paging the on-call astronaut')).not.toBe('guides/alerts.md');
  });

  it('writes nothing on a dry run', async () => {
    const report = await ingest({ dryRun: true });
    expect(report.files.added).toBe(3);
    await expect(openRetrieval(loadCoreConfig(env))).rejects.toMatchObject({ code: 'index_missing' });
  });

  it('says which flag to use when the docs folder does not exist', async () => {
    await expect(runIngest(loadCoreConfig(env), { docsDir: path.join(workDir, 'missing') })).rejects.toMatchObject({
      code: 'docs_dir_missing',
      hint: expect.stringContaining('--docs'),
    });
  });

  it('refuses to mix embedders and asks for --rebuild, which then succeeds', async () => {
    await ingest();
    env.EMBEDDING_DIMENSIONS = '256';
    const mismatch = await ingest().catch((error: unknown) => error);
    expect(mismatch).toBeInstanceOf(DocsChatError);
    expect(mismatch).toMatchObject({ code: 'index_mismatch', hint: expect.stringContaining('--rebuild') });
    await expect(openRetrieval(loadCoreConfig(env))).rejects.toMatchObject({ code: 'index_mismatch' });
    const rebuilt = await ingest({ rebuild: true });
    expect(rebuilt.files.added).toBe(3);
    expect(await topFileFor('installing the scheduler')).toBe('intro.md');
  });

  it('reports a corrupted store with a hint to rebuild instead of serving nothing', async () => {
    await ingest();
    const indexDir = path.join(env.DATA_DIR as string, 'index', 'docusaurus-book');
    const vectorFile = (await fs.readdir(indexDir)).find((name) => name.startsWith('vectors-')) as string;
    await fs.writeFile(path.join(indexDir, vectorFile), 'garbage');
    await expect(topFileFor('telemetry')).rejects.toMatchObject({ code: 'index_corrupt', hint: expect.stringContaining('--rebuild') });
    await ingest({ rebuild: true });
    expect(await topFileFor('how are telemetry frames stored')).toBe('guides/telemetry.mdx');
  });
});

describe('ingest with a remote embedder that fails', () => {
  let standIn: GeminiStandIn;
  let workDir: string;
  let docsDir: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    standIn = await startGeminiStandIn();
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-ingest-remote-'));
    docsDir = path.join(workDir, 'docs');
    await writePages(docsDir, PAGES);
    env = {
      DATA_DIR: path.join(workDir, 'data'),
      GEMINI_API_KEY: 'test-gemini-key',
      GEMINI_BASE_URL: standIn.url,
      LLM_PROVIDER: 'extractive',
    };
  });
  afterEach(async () => {
    await standIn.close();
    await fs.rm(workDir, { recursive: true, force: true });
  });

  const ingest = () => runIngest(loadCoreConfig(env), { docsDir });

  it('leaves the previous index serving when the embedder goes down half-way, and the next run finishes the job', async () => {
    await ingest();
    await fs.writeFile(
      path.join(docsDir, 'guides/alerts.md'),
      '# Alerts\n\n## Escalating alerts\n\nUnanswered pages escalate to the flight director.\n',
    );
    standIn.failNext({ status: 503, times: 20 });
    await expect(ingest()).rejects.toMatchObject({ code: 'embedder_unavailable' });

    const retrieval = await openRetrieval(loadCoreConfig(env));
    try {
      const files = await retrieval.store.listFiles();
      expect(files.map((state) => state.file).sort()).toEqual(['guides/alerts.md', 'guides/telemetry.mdx', 'intro.md']);
      const alerts = await retrieval.store.getByFile('guides/alerts.md');
      expect(alerts.map((chunk) => chunk.heading)).toContain('Paging the on-call astronaut');
    } finally {
      await retrieval.close();
    }

    standIn.reset();
    const recovered = await ingest();
    expect(recovered.files).toMatchObject({ modified: 1, unchanged: 2 });
  });

  it('refuses a second ingest while one is running', async () => {
    // Two failures keep the first run busy in its retry back-off, holding the lock.
    standIn.failNext({ status: 503, times: 2 });
    const first = ingest();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await expect(ingest()).rejects.toMatchObject({ code: 'ingest_locked', hint: expect.stringContaining('Wait') });
    expect((await first).files.added).toBe(3);
  });
});
