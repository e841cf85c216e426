import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const cli = path.join(root, 'packages/server/src/cli.ts');
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function docsChat(args: string[], env: Record<string, string>): Promise<CliResult> {
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

describe('the docs-chat command line', () => {
  let workDir: string;
  let docsDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-cli-'));
    docsDir = path.join(workDir, 'docs');
    await fs.mkdir(docsDir, { recursive: true });
    await fs.writeFile(
      path.join(docsDir, 'rockets.md'),
      '# Rockets\n\n## Fuelling the rocket\n\nLiquid oxygen is loaded two hours before launch.\n',
    );
    await fs.writeFile(path.join(docsDir, 'crew.md'), '# Crew\n\n## Training the crew\n\nAstronauts train in the centrifuge every week.\n');
    env = { DATA_DIR: path.join(workDir, 'data'), EMBEDDING_PROVIDER: 'local' };
  });
  afterAll(async () => {
    await fs.rm(workDir, { recursive: true, force: true });
  });

  it('ingests a docs folder and prints the report as JSON with --json', async () => {
    const result = await docsChat(['ingest', '--docs', docsDir, '--json'], env);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { files: unknown; chunks: { total: number }; embedding: { calls: number } };
    expect(report.files).toMatchObject({ total: 2, added: 2 });
    expect(report.chunks.total).toBeGreaterThanOrEqual(2);
    expect(report.embedding.calls).toBeGreaterThan(0);
  }, 60_000);

  it('prints a human report, and a re-run embeds nothing', async () => {
    const result = await docsChat(['ingest', '--docs', docsDir], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('2 unchanged');
    expect(result.stdout).toContain('Embedding calls: 0');
  }, 60_000);

  it('searches and prints ranked results as a JSON array with the out-of-scope flag', async () => {
    const result = await docsChat(['search', 'when is liquid oxygen loaded', '--k', '2', '--json'], env);
    expect(result.code).toBe(0);
    const results = JSON.parse(result.stdout) as { url: string }[];
    expect(Array.isArray(results)).toBe(true);
    expect(results[0]).toMatchObject({
      rank: 1,
      file: 'rockets.md',
      title: 'Rockets',
      heading_path: ['Rockets', 'Fuelling the rocket'],
      out_of_scope: false,
    });
    expect(results[0]?.url).toBe('/docs/rockets#fuelling-the-rocket');
    expect(results.length).toBeLessThanOrEqual(2);
  }, 60_000);

  it('explains with --explain what was searched for and why the question is in or out of scope', async () => {
    const inScope = await docsChat(['search', 'when is liquid oxygen loaded', '--explain'], env);
    expect(inScope.code).toBe(0);
    expect(inScope.stdout).toContain('Why these results:');
    expect(inScope.stdout).toMatch(/question words: liquid, oxygen, load/);
    expect(inScope.stdout).toContain('verdict: in scope');
    // The thresholds are the ones fitted on this small index at ingest.
    expect(inScope.stdout).toMatch(/✓ vocabulary 1\.00 \(at least 0\.\d+\)/);
    expect(inScope.stdout).toMatch(/✓ dense 0\.\d+ \(at least /);

    const outOfScope = await docsChat(['search', 'How do I feed my Tamagotchi?', '--json', '--explain'], env);
    expect(outOfScope.code).toBe(0);
    const { results, explanation } = JSON.parse(outOfScope.stdout) as {
      results: unknown[];
      explanation: { scope: { missingNames: string[]; vocabulary: number; minVocabulary: number } };
    };
    expect(results[0]).toMatchObject({ out_of_scope: true });
    expect(explanation.scope.missingNames).toEqual(['Tamagotchi']);
    expect(explanation.scope.vocabulary).toBeLessThan(explanation.scope.minVocabulary);
  }, 60_000);

  it('stops quietly when the reader of its output goes away (`docs-chat search … | head`)', async () => {
    // The pipe is closed before the command writes its results, as `head` does after its lines.
    const child = spawn(process.execPath, [tsx, cli, 'search', 'How is the rocket fuelled?', '--k', '10'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it("refuses an empty question and one over 4,000 characters (the chat protocol's limit) with a clear message", async () => {
    const empty = await docsChat(['search', '   '], env);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('The question is empty');
    const long = await docsChat(['search', 'x'.repeat(4001)], env);
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('limit is 4000');
  }, 60_000);

  it('refuses a DATA_DIR whose parent folder is missing in one line with exit code 2', async () => {
    const result = await docsChat(['ingest', '--docs', path.join(workDir, 'nowhere')], {
      ...env,
      DATA_DIR: path.join(workDir, 'no-such-parent', 'data'),
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringContaining(`its parent folder ${path.join(workDir, 'no-such-parent')} does not exist`),
    ]);
  }, 60_000);

  it('refuses an EMBEDDING_CACHE_DIR that is a file in one line with exit code 2', async () => {
    const file = path.join(workDir, 'not-a-folder');
    await fs.writeFile(file, '');
    const result = await docsChat(['ingest', '--docs', docsDir], { ...env, EMBEDDING_CACHE_DIR: file });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `docs-chat: EMBEDDING_CACHE_DIR=${file} is a file, not a folder; set EMBEDDING_CACHE_DIR to a folder docs-chat may write to.`,
    ]);
  }, 60_000);

  it('keeps vectors in EMBEDDING_CACHE_DIR, so an ingest into a new DATA_DIR embeds nothing it has seen', async () => {
    const cacheDir = path.join(workDir, 'shared-cache');
    const first = await docsChat(['ingest', '--docs', docsDir, '--json'], {
      ...env,
      DATA_DIR: path.join(workDir, 'first'),
      EMBEDDING_CACHE_DIR: cacheDir,
    });
    expect(first.code).toBe(0);
    expect(await fs.readdir(cacheDir)).toEqual([expect.stringMatching(/^local-.*\.bin$/)]);
    expect(await fs.readdir(path.join(workDir, 'first'))).not.toContain('embedding-cache');
    const second = await docsChat(['ingest', '--docs', docsDir, '--json'], {
      ...env,
      DATA_DIR: path.join(workDir, 'second'),
      EMBEDDING_CACHE_DIR: cacheDir,
    });
    expect(second.code).toBe(0);
    const firstReport = JSON.parse(first.stdout) as { chunks: { total: number }; embedding: { texts: number; cacheHits: number } };
    const secondReport = JSON.parse(second.stdout) as { chunks: { total: number }; embedding: { texts: number; cacheHits: number } };
    expect(firstReport.embedding.texts).toBe(firstReport.chunks.total);
    expect(secondReport.embedding).toMatchObject({ texts: 0, cacheHits: secondReport.chunks.total });
  }, 60_000);

  it('fails with a clear error and a non-zero exit code when the docs folder is missing', async () => {
    const result = await docsChat(['ingest', '--docs', path.join(workDir, 'nowhere')], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('does not exist');
    expect(result.stderr).toContain('--docs DIR');
  }, 60_000);

  it('answers an unknown command in one line naming the commands, and an unknown flag with the usage text', async () => {
    const unknown = await docsChat(['frobnicate'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^docs-chat: unknown command "frobnicate"; the commands are ingest, search, insights, serve, mcp \(run `docs-chat --help`/,
      ),
    ]);
    const badFlag = await docsChat(['ingest', '--fast'], env);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--rebuild');
  }, 60_000);
});
