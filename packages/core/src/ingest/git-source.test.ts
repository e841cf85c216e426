import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadCoreConfig } from '../config.js';
import { isDocsChatError } from '../errors.js';
import { openRetrieval, runGitIngest } from '../runtime.js';

const PAGES: Record<string, string> = {
  'docs/intro.md': '# Welcome\n\nThe orbital scheduler plans satellite passes over the ground stations.\n',
  'docs/guides/telemetry.md': '# Telemetry\n\n## Storing telemetry\n\nFrames are kept for thirty days in the cold archive.\n',
  'docs/guides/alerts.md': '# Alerts\n\n## Paging\n\nAlerts page the on-call astronaut through the pager gateway.\n',
  'README.md': '# Not part of the docs folder\n\nThis readme mentions a submarine periscope.\n',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

async function write(root: string, files: Record<string, string>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await fs.writeFile(path.join(root, file), content);
  }
}

describe('ingest from git', () => {
  let work: string;
  let repo: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-git-'));
    repo = path.join(work, 'repo');
    await fs.mkdir(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    await write(repo, PAGES);
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'first');
    env = { DATA_DIR: path.join(work, 'data'), EMBEDDING_PROVIDER: 'local', GIT_URL: repo, GIT_REF: 'main', GIT_PATH: 'docs' };
  });
  afterEach(async () => {
    await fs.rm(work, { recursive: true, force: true });
  });

  const sync = (overrides: Record<string, string> = {}) => runGitIngest(loadCoreConfig({ ...env, ...overrides }));
  const head = () => git(repo, 'rev-parse', 'HEAD').trim();

  async function search(question: string) {
    const retrieval = await openRetrieval(loadCoreConfig(env));
    try {
      return (await retrieval.retriever.search(question)).hits;
    } finally {
      await retrieval.close();
    }
  }

  it('indexes the docs folder of the ref, then reads only the files changed between commits (renames and deletions included)', async () => {
    const first = await sync();
    expect(first.git).toMatchObject({ from: null, to: head(), mode: 'full' });
    expect(first.files).toMatchObject({ total: 3, added: 3 });
    const hits = await search('how long are telemetry frames kept');
    expect(hits[0]?.chunk).toMatchObject({ file: 'guides/telemetry.md', source: 'git' });
    expect(JSON.stringify(hits)).not.toContain('periscope');

    const again = await sync();
    expect(again.git).toMatchObject({ from: head(), to: head(), mode: 'unchanged' });
    expect(again.embedding.calls).toBe(0);
    expect(again.files).toMatchObject({ unchanged: 3, added: 0, modified: 0, deleted: 0 });

    const firstCommit = head();
    await write(repo, {
      'docs/guides/telemetry.md': '# Telemetry\n\n## Storing telemetry\n\nFrames are kept for ninety days in the glacier vault.\n',
    });
    git(repo, 'mv', 'docs/guides/alerts.md', 'docs/guides/paging.md');
    await fs.rm(path.join(repo, 'docs/intro.md'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'edit, rename, delete');
    const delta = await sync();
    expect(delta.git).toMatchObject({ from: firstCommit, to: head(), mode: 'delta', changedFiles: 4 });
    expect(delta.files).toMatchObject({ total: 2, added: 1, modified: 1, deleted: 2, unchanged: 0 });
    // The renamed page kept its text, so only the edited section was embedded again.
    expect(delta.embedding.texts).toBe(1);
    expect((await search('glacier vault'))[0]?.chunk.file).toBe('guides/telemetry.md');
    expect((await search('pager gateway astronaut'))[0]?.chunk.file).toBe('guides/paging.md');
    expect((await search('orbital scheduler satellite passes')).some((hit) => hit.chunk.file === 'intro.md')).toBe(false);
  }, 60_000);

  it('falls back to comparing every file by content hash after a force-push', async () => {
    await sync();
    await write(repo, { 'docs/guides/alerts.md': '# Alerts\n\n## Paging\n\nAlerts ring a brass bell in the control room.\n' });
    git(repo, 'commit', '--quiet', '-a', '--amend', '-m', 'rewritten history');
    const report = await sync();
    expect(report.git?.mode).toBe('full');
    expect(report.git?.reason).toMatch(/force-push/);
    expect(report.files).toMatchObject({ modified: 1, unchanged: 2 });
    expect((await search('brass bell control room'))[0]?.chunk.file).toBe('guides/alerts.md');
  }, 60_000);

  it('names the setting to change for a bad ref, an unreachable repository, a missing path and a shallow clone, and keeps the last good index', async () => {
    await sync();
    const failure = async (overrides: Record<string, string>) => {
      const error = await sync(overrides).then(
        () => null,
        (caught: unknown) => caught,
      );
      if (!isDocsChatError(error)) throw new Error(`expected a DocsChatError, got ${String(error)}`);
      return error;
    };
    const badRef = await failure({ GIT_REF: 'no-such-branch' });
    expect(badRef.code).toBe('git_ref_missing');
    expect(badRef.hint).toContain('GIT_REF');

    const unreachable = await failure({ GIT_URL: path.join(work, 'nowhere') });
    expect(unreachable.code).toBe('git_unreachable');
    expect(unreachable.hint).toContain('GIT_URL');
    // Only the good repository's clone is kept under DATA_DIR.
    expect(await fs.readdir(path.join(env['DATA_DIR'] as string, 'git'))).toHaveLength(1);

    const missingPath = await failure({ GIT_PATH: 'website/docs' });
    expect(missingPath.hint).toContain('GIT_PATH');

    const shallow = path.join(work, 'shallow');
    git(work, 'clone', '--quiet', '--depth', '1', `file://${repo}`, shallow);
    const shallowError = await failure({ GIT_URL: shallow });
    expect(shallowError.code).toBe('git_shallow');
    expect(shallowError.hint).toContain('GIT_URL');
    expect(shallowError.hint).toContain('--unshallow');

    expect((await search('pager gateway astronaut'))[0]?.chunk.file).toBe('guides/alerts.md');
  }, 60_000);

  it('fails at once, without prompting, when the repository asks for credentials', async () => {
    const server = http.createServer((_request, response) => {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="private"' });
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const error = await sync({ GIT_URL: `http://127.0.0.1:${port}/private/docs.git` }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(isDocsChatError(error) && error.code).toBe('git_auth_required');
      expect(isDocsChatError(error) && error.hint).toMatch(/GIT_URL/);
    } finally {
      server.close();
    }
  }, 60_000);
});
