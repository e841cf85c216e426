import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runIngestCommand } from '../commands/ingest-command.js';
import { runIngestProcess } from '../commands/ingest-process.js';
import { loadConfig } from '../config.js';
import { startServer, type RunningServer } from '../server-runtime.js';
import { LogCapture } from '../testing/test-server.js';

// DOCS_SITE_DIR: the whole Docusaurus site is the default source of `docs-chat ingest` and of POST /admin/ingest,
// which reads the site again on each run, so a version or a translation added since start-up is picked up.

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtureSite = path.join(here, '../__fixtures__/site');
const ADMIN_TOKEN = 'admin-token-for-site-tests';

let workDir: string;
let siteDir: string;
let env: Record<string, string>;
let server: RunningServer | undefined;

beforeAll(async () => {
  workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-admin-site-'));
  siteDir = path.join(workDir, 'site');
  await fs.cp(fixtureSite, siteDir, { recursive: true });
  env = {
    DATA_DIR: path.join(workDir, 'data'),
    EMBEDDING_PROVIDER: 'local',
    DOCS_SITE_DIR: siteDir,
    ADMIN_TOKEN,
    PORT: '0',
    HOST: '127.0.0.1',
  };
}, 60_000);

afterAll(async () => {
  await server?.close();
  await fs.rm(workDir, { recursive: true, force: true });
});

async function search(
  url: string,
  query: string,
  scope: Record<string, string>,
): Promise<{ status: number; body: { results?: { url: string }[] } }> {
  const response = await fetch(`${url}/search?${new URLSearchParams({ q: query, k: '3', ...scope }).toString()}`);
  return { status: response.status, body: (await response.json()) as { results?: { url: string }[] } };
}

/** POST /admin/ingest with no source given, as an admin would after editing the site. */
function adminIngest(url: string): Promise<Response> {
  return fetch(`${url}/admin/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
}

it('ingests the site of DOCS_SITE_DIR when no source is given, and POST /admin/ingest picks up a new translation', async () => {
  const written: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be put back on process.stdout, where it is called as a method
  const write = process.stdout.write;
  process.stdout.write = (chunk: string) => (written.push(String(chunk)), true);
  let code: number;
  try {
    code = await runIngestCommand([], env);
  } finally {
    process.stdout.write = write;
  }
  expect(code).toBe(0);
  expect(written.join('')).toContain('Site: versions current, 1.0 (last); locales en, fr (default en).');

  server = await startServer(loadConfig(env), { logDestination: new LogCapture() });
  const before = await search(server.url, 'paper size for the export', { version: 'current', locale: 'fr' });
  expect(before.status).toBe(200);
  expect(before.body.results?.[0]?.url).toBe('/fr/docs/next/exporting#choosing-the-paper-size');

  // A translator adds the French exporting page: the next admin ingest reads the site again.
  const translated = path.join(siteDir, 'i18n/fr/docusaurus-plugin-content-docs/current/exporting.md');
  await fs.writeFile(
    translated,
    "# Exporter\n\n## Choisir le format du papier {#choosing-the-paper-size}\n\nLe format du papier de l'export se règle dans les préférences d'impression : A4 ou Letter.\n",
  );
  const response = await adminIngest(server.url);
  expect(response.status).toBe(200);
  const { report } = (await response.json()) as { report: { files: { modified: number; added: number; deleted: number } } };
  // The French page replaces the English text it fell back on: one page changed, nothing else.
  expect(report.files).toMatchObject({ modified: 1, added: 0, deleted: 0 });

  const after = await fetch(
    `${server.url}/search?${new URLSearchParams({ q: 'format du papier export', k: '1', version: 'current', locale: 'fr' }).toString()}`,
  );
  const afterBody = (await after.json()) as { results: { url: string; text?: string; fallback_locale?: string }[] };
  expect(afterBody.results[0]?.url).toBe('/fr/docs/next/exporting#choosing-the-paper-size');
  expect(afterBody.results[0]?.fallback_locale).toBeUndefined();
}, 120_000);

it('runs POST /admin/ingest in a child process when the server has its environment (as docs-chat serve does), and serves the new text after it', async () => {
  // One server per DATA_DIR (its PGlite conversations): the first test's server stops first.
  await server?.close();
  server = undefined;
  const inChild = await startServer(loadConfig(env), { logDestination: new LogCapture(), env: { ...process.env, ...env } });
  try {
    const translated = path.join(siteDir, 'i18n/fr/docusaurus-plugin-content-docs/current/exporting.md');
    await fs.writeFile(
      translated,
      "# Exporter\n\n## Choisir le format du papier {#choosing-the-paper-size}\n\nLe format du papier se choisit aussi dans l'assistant d'export, page trois : A4, A5 ou Letter.\n",
    );
    const response = await adminIngest(inChild.url);
    expect(response.status).toBe(200);
    const { report } = (await response.json()) as { report: { files: { modified: number; added: number; deleted: number } } };
    expect(report.files).toMatchObject({ modified: 1, added: 0, deleted: 0 });
    const after = await search(inChild.url, 'assistant d’export page trois A5', { version: 'current', locale: 'fr' });
    expect(after.body.results?.[0]?.url).toBe('/fr/docs/next/exporting#choosing-the-paper-size');
  } finally {
    await inChild.close();
  }
}, 120_000);

it('reports the ingest error of the child process with its code and fix', async () => {
  const { DOCS_SITE_DIR: _site, ...withoutSite } = env;
  const failure = await runIngestProcess({ ...process.env, ...withoutSite, DOCS_DIR: path.join(workDir, 'no-such-docs') }, {}).catch(
    (error: unknown) => error,
  );
  expect(failure).toMatchObject({ code: 'docs_dir_missing' });
  expect((failure as Error).message).toContain('no-such-docs');
}, 60_000);

/** Child processes of this one, from /proc (Linux), with their command lines. */
async function childProcesses(): Promise<{ pid: number; command: string }[]> {
  const children: { pid: number; command: string }[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Field 4 of stat is the parent's pid; the fields after the command name (in parentheses) start at 3.
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
    const command = (await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    children.push({ pid: Number(entry), command });
  }
  return children;
}

it('runs the admin ingest process at a lower priority than the server, which keeps its own', async () => {
  const own = os.getPriority();
  const running = runIngestProcess({ ...process.env, ...env }, {});
  let seen: number | undefined;
  if (process.platform === 'linux') {
    for (let attempt = 0; attempt < 500 && seen === undefined; attempt++) {
      const ingest = (await childProcesses()).find((child) => child.command.includes('ingest --json'));
      if (ingest) seen = os.getPriority(ingest.pid);
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  const report = await running;
  expect(report.chunks.total).toBeGreaterThan(0);
  if (process.platform === 'linux') expect(seen).toBe(Math.max(own, 10));
  expect(os.getPriority()).toBe(own);
}, 60_000);
