import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestIndex, eventually, FIXTURE_DOCS_DIR, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';
import type { SyncStatus } from '../sync/git-sync-job.js';

const SETUP_TIMEOUT_MS = 120_000;
const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
const SECRET = 'webhook-secret-0123456789abcdef';

let index: TestIndex;
let work: string;
let repo: string;
let server: TestServer;

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
}

beforeAll(async () => {
  index = await createTestIndex();
  work = await mkdtemp(path.join(tmpdir(), 'docs-chat-webhook-'));
  repo = path.join(work, 'repo');
  await cp(FIXTURE_DOCS_DIR, path.join(repo, 'docs'), { recursive: true });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'docs');
  server = await startTestServer({
    index,
    env: { ADMIN_TOKEN, GIT_WEBHOOK_SECRET: SECRET, GIT_URL: repo, GIT_REF: 'main', GIT_PATH: 'docs' },
  });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await index?.remove();
  await rm(work, { recursive: true, force: true });
});

let deliveries = 0;
function githubPush(body: unknown, options: { signature?: string | null; delivery?: string; event?: string } = {}): Promise<Response> {
  const raw = JSON.stringify(body);
  const signature =
    options.signature === undefined ? `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}` : options.signature;
  return fetch(`${server.url}/webhooks/git`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': options.event ?? 'push',
      'x-github-delivery': options.delivery ?? `delivery-${++deliveries}`,
      ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
    },
    body: raw,
  });
}

async function status(): Promise<SyncStatus> {
  const response = await fetch(`${server.url}/admin/ingest/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { git: SyncStatus }).git;
}

async function settled(): Promise<SyncStatus> {
  await eventually(async () => {
    const current = await status();
    return current.state === 'idle' && !current.queued && current.finishedAt !== null;
  }, 60_000);
  return status();
}

async function searchTop(question: string): Promise<string | undefined> {
  const response = await fetch(`${server.url}/search?q=${encodeURIComponent(question)}`);
  const body = (await response.json()) as { results: { file?: string; url?: string; title?: string }[] };
  return JSON.stringify(body.results[0] ?? null);
}

describe('git sync over HTTP', () => {
  it('refuses a push with a missing or wrong signature with 401 and runs nothing', async () => {
    const push = { ref: 'refs/heads/main' };
    expect((await githubPush(push, { signature: null })).status).toBe(401);
    expect((await githubPush(push, { signature: 'sha256=0000' })).status).toBe(401);
    const tampered = await fetch(`${server.url}/webhooks/git`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update('{}').digest('hex')}`,
      },
      body: JSON.stringify(push),
    });
    expect(tampered.status).toBe(401);
    expect(((await tampered.json()) as { error: { message: string } }).error.message).toContain('GIT_WEBHOOK_SECRET');
    const gitlab = await fetch(`${server.url}/webhooks/git`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'wrong-token' },
      body: JSON.stringify(push),
    });
    expect(gitlab.status).toBe(401);
    expect((await status()).startedAt).toBeNull();
  });

  it('accepts a signed push larger than the chat body limit (GitHub sends up to 25 MB)', async () => {
    const response = await githubPush({ ref: 'refs/heads/feature', commits: [{ message: 'x'.repeat(2 * 1024 * 1024) }] });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ status: 'ignored' });
  });

  it('ignores pushes to other branches', async () => {
    const response = await githubPush({ ref: 'refs/heads/feature' });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ status: 'ignored' });
    expect((await status()).startedAt).toBeNull();
  });

  it('syncs on a signed push in the background, queues one run for pushes during it, and ignores a replayed delivery', async () => {
    await writeFile(
      path.join(repo, 'docs', 'ferry.md'),
      '# Ferry timetable\n\nThe night ferry to the lighthouse island leaves at eleven.\n',
    );
    git('add', '-A');
    git('commit', '--quiet', '-m', 'ferry page');
    const first = await githubPush({ ref: 'refs/heads/main' }, { delivery: 'same-delivery' });
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ status: 'started' });
    const replay = await githubPush({ ref: 'refs/heads/main' }, { delivery: 'same-delivery' });
    expect(await replay.json()).toMatchObject({ status: 'ignored' });
    // GitLab's push during the run is queued; one more is not queued twice.
    const gitlabPush = () =>
      fetch(`${server.url}/webhooks/git`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': SECRET },
        body: JSON.stringify({ ref: 'refs/heads/main' }),
      });
    const queued = (await (await gitlabPush()).json()) as { status: string };
    const again = (await (await gitlabPush()).json()) as { status: string };
    expect([queued.status, again.status]).toEqual(['queued', 'already_queued']);

    const done = await settled();
    expect(done.lastError).toBeNull();
    expect(done.lastCommit).toBe(git('rev-parse', 'HEAD').trim());
    expect(done.lastResult?.mode).toBe('unchanged');
    expect(await searchTop('night ferry lighthouse island')).toContain('Ferry timetable');

    // A restarted server knows the commit its index was synced to.
    const restarted = await startTestServer({
      index,
      env: { ADMIN_TOKEN, GIT_WEBHOOK_SECRET: SECRET, GIT_URL: repo, GIT_REF: 'main', GIT_PATH: 'docs' },
    });
    try {
      const response = await fetch(`${restarted.url}/admin/ingest/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(((await response.json()) as { git: SyncStatus }).git).toMatchObject({ state: 'idle', lastCommit: done.lastCommit });
    } finally {
      await restarted.close();
    }
  }, 90_000);

  it('runs POST /admin/sync in the background and reports a bad ref as the last error while the index keeps serving', async () => {
    expect((await fetch(`${server.url}/admin/sync`, { method: 'POST' })).status).toBe(401);
    const response = await fetch(`${server.url}/admin/sync`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ status: 'started' });
    const done = await settled();
    expect(done.lastError).toBeNull();
    expect(done.lastResult).toMatchObject({ mode: 'unchanged', embeddingCalls: 0 });

    // Remove the branch the server syncs: the next sync fails with the setting to change.
    git('checkout', '--quiet', '-b', 'other');
    git('branch', '--quiet', '-D', 'main');
    await fetch(`${server.url}/admin/sync`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const failed = await settled();
    expect(failed.lastError).toMatchObject({ code: 'git_ref_missing' });
    expect(failed.lastError?.hint).toContain('GIT_REF');
    expect(await searchTop('night ferry lighthouse island')).toContain('Ferry timetable');
  }, 90_000);
});
