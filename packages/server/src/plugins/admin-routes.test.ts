import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { acquireIngestLock } from '../core-api.js';
import { createTestIndex, FIXTURE_DOCS_DIR, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';
import type { SearchResponseBody } from './search-routes.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

let index: TestIndex;
let docsDir: string;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex();
  // The ingest reads its own copy of the docs so a test can add a page.
  docsDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-admin-docs-'));
  await cp(FIXTURE_DOCS_DIR, docsDir, { recursive: true });
  server = await startTestServer({ index, env: { ADMIN_TOKEN, DOCS_DIR: docsDir } });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await index?.remove();
  await rm(docsDir, { recursive: true, force: true });
});

function ingest(authorization?: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}/admin/ingest`, {
    method: 'POST',
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('POST /admin/ingest', () => {
  it('refuses a request without the admin token with 401', async () => {
    const response = await ingest();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/Authorization: Bearer/);
  });

  it('refuses a wrong token, including one that differs only in length, with 401', async () => {
    expect((await ingest('Bearer not-the-token')).status).toBe(401);
    expect((await ingest(`Bearer ${ADMIN_TOKEN}x`)).status).toBe(401);
    expect((await ingest(`Basic ${ADMIN_TOKEN}`)).status).toBe(401);
  });

  it('runs the incremental ingest and makes a new page searchable without a restart', async () => {
    await writeFile(
      path.join(docsDir, 'guides', 'time-travel.md'),
      '---\ntitle: Time travel debugging\n---\n\n# Time travel debugging\n\nThe lighthouse panel replays every recorded signal backwards and forwards, one step at a time.\n',
    );
    const response = await ingest(`Bearer ${ADMIN_TOKEN}`);
    expect(response.status).toBe(200);
    const { report } = (await response.json()) as { report: { files: { added: number; unchanged: number }; dryRun: boolean } };
    expect(report.files.added).toBe(1);
    expect(report.files.unchanged).toBeGreaterThan(0);
    expect(report.dryRun).toBe(false);

    const search = (await (await fetch(`${server.url}/search?q=lighthouse+panel+replays+signals`)).json()) as SearchResponseBody;
    expect(search.results[0]?.file).toBe('guides/time-travel.md');
  });

  it('answers 409 to a second ingest while one is running', async () => {
    const [first, second] = await Promise.all([
      ingest(`Bearer ${ADMIN_TOKEN}`, { rebuild: true }),
      ingest(`Bearer ${ADMIN_TOKEN}`, { rebuild: true }),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 409]);
    const refused = first.status === 409 ? first : second;
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('ingest_running');
  });

  it('answers 409 while another process holds the ingest lock', async () => {
    const lock = await acquireIngestLock(index.dataDir, 'docusaurus-book');
    try {
      const response = await ingest(`Bearer ${ADMIN_TOKEN}`);
      expect(response.status).toBe(409);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('ingest_running');
    } finally {
      await lock.release();
    }
  });

  it('rejects unknown options with 400', async () => {
    const response = await ingest(`Bearer ${ADMIN_TOKEN}`, { rebuild: 'yes', everything: true });
    expect(response.status).toBe(400);
    const details = ((await response.json()) as { error: { details: string[] } }).error.details.join(' ');
    expect(details).toMatch(/Unknown field "everything"/);
    expect(details).toMatch(/"rebuild" must be true or false/);
  });
});

describe('an admin ingest that fails', () => {
  it('answers 500 with what failed and what to do', async () => {
    const broken = await startTestServer({ index, env: { ADMIN_TOKEN, DOCS_DIR: path.join(docsDir, 'missing-folder') } });
    try {
      const response = await fetch(`${broken.url}/admin/ingest`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(response.status).toBe(500);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('ingest_failed');
      expect(body.error.message).toMatch(/missing-folder/);
      expect(body.error.message).toMatch(/→/);
    } finally {
      await broken.close();
    }
  });
});

describe('the admin routes without ADMIN_TOKEN', () => {
  it('do not exist', async () => {
    const plain = await startTestServer({ index });
    try {
      const response = await fetch(`${plain.url}/admin/ingest`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
    } finally {
      await plain.close();
    }
  });
});
