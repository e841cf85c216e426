import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// `docs-chat ingest --site` and `docs-chat search --version/--locale` (issue 13), run as a user runs them.

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const cli = path.join(root, 'packages/server/src/cli.ts');
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const fixtureSite = path.join(root, 'packages/server/src/__fixtures__/site');

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

let workDir: string;
let siteDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-site-cli-'));
  siteDir = path.join(workDir, 'site');
  await fs.cp(fixtureSite, siteDir, { recursive: true });
  env = { DATA_DIR: path.join(workDir, 'data'), EMBEDDING_PROVIDER: 'local' };
});
afterAll(async () => {
  await fs.rm(workDir, { recursive: true, force: true });
});

it('ingests a whole site and names its versions and locales in the report', async () => {
  const result = await docsChat(['ingest', '--site', siteDir], env);
  expect(result.stderr).not.toContain('Error');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Site: versions current, 1.0 (last); locales en, fr (default en).');
}, 60_000);

it('searches one version and locale, and marks untranslated pages', async () => {
  const result = await docsChat(['search', 'paper size for the export', '--version', 'current', '--locale', 'fr', '--k', '1'], env);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Searched version Next, locale fr.');
  expect(result.stdout).toContain('/fr/docs/next/exporting#choosing-the-paper-size');
  expect(result.stdout).toContain('[not translated: en text]');
  const json = await docsChat(['search', 'paper size for the export', '--version', '1.0', '--k', '1', '--json'], env);
  expect((JSON.parse(json.stdout) as unknown[])[0]).toMatchObject({
    url: '/docs/exporting#choosing-the-paper-size',
    version: '1.0',
    locale: 'en',
  });
}, 60_000);

it('says when an asked version is not in the index', async () => {
  const result = await docsChat(['search', 'export', '--version', '9.9'], env);
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('version "9.9" is not in the index (it holds current, 1.0); searched 1.0 (en) instead.');
}, 60_000);

it('refuses --docs with --site, and names a missing versioned folder with the fix', async () => {
  const both = await docsChat(['ingest', '--site', siteDir, '--docs', siteDir], env);
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('--docs and --site cannot be used together');
  await fs.writeFile(path.join(siteDir, 'versions.json'), '["2.0", "1.0"]');
  const missing = await docsChat(['ingest', '--site', siteDir], env);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('versions.json lists version "2.0", but its docs folder versioned_docs/version-2.0/ does not exist');
  expect(missing.stderr).toContain('remove "2.0" from versions.json');
}, 60_000);
