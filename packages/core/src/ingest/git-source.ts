/**
 * The git source: a clone kept under DATA_DIR, brought to the wanted ref with
 * the system `git` (spawned with argument arrays, never through a shell), and
 * the list of files changed between the last ingested commit and the new one.
 *
 * git never prompts: GIT_TERMINAL_PROMPT=0, no askpass helper, ssh in batch
 * mode, stdin closed. A repository that needs credentials fails with a message
 * saying how to give them instead of hanging a background job.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DocsChatError } from '../errors.js';
import { acquirePidLock, type PidLock } from '../locks/pid-lock-file.js';

export interface GitSourceSettings {
  /** A URL git understands (https://, ssh://, git@host:path, file://) or a local path. */
  url: string;
  /** Branch, tag or commit; the remote's default branch (HEAD) when unset. */
  ref?: string | undefined;
  /** The folder inside the repository holding the docs; the repository root when unset. */
  path?: string | undefined;
}

export interface GitCheckout {
  /** The clone's work tree. */
  dir: string;
  /** The docs folder inside it. */
  docsDir: string;
  commit: string;
  /** `url` as given (a local path made absolute). */
  url: string;
  ref: string | null;
  path: string | null;
  release(): Promise<void>;
}

/** Settings named in every git error, so the message says what to change. */
const URL_SETTING = 'GIT_URL (or --git)';
const REF_SETTING = 'GIT_REF (or --ref)';
const PATH_SETTING = 'GIT_PATH (or --path)';

/** Git commands are network or disk bound; this bounds a stuck remote. */
const GIT_TIMEOUT_MS = 10 * 60_000;

/** Local paths are made absolute so the clone key and the remote do not depend on the working directory. */
export function normalizeGitUrl(url: string, cwd = process.cwd()): string {
  const trimmed = url.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /^[^/\\]+@[^:/\\]+:/.test(trimmed)) return trimmed;
  return path.resolve(cwd, trimmed);
}

/** Credentials embedded in a URL (https://user:token@host) never reach a log or a report. */
export function redactGitUrl(url: string): string {
  return url.replace(/([a-z][a-z0-9+.-]*:\/\/)[^@/\s]+@/gi, '$1***@');
}

function gitEnvironment(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GCM_INTERACTIVE: 'never',
    // ssh asks nothing either (no password, no unknown host key question).
    GIT_SSH_COMMAND: process.env['GIT_SSH_COMMAND'] ?? 'ssh -o BatchMode=yes',
    LC_ALL: 'C',
  };
}

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runGit(args: string[], options: { cwd?: string; signal?: AbortSignal | undefined } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: gitEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: GIT_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (data: Buffer) => out.push(data));
    child.stderr.on('data', (data: Buffer) => err.push(data));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        reject(
          new DocsChatError('git_failed', 'The git command was not found.', {
            hint: 'Install git (for example `apt-get install git`) where docs-chat runs.',
            cause: error,
          }),
        );
      } else if (error.name === 'AbortError') {
        reject(new DocsChatError('aborted', 'The git sync was cancelled.', { cause: error }));
      } else {
        reject(error);
      }
    });
    child.on('close', (code) =>
      resolve({ code: code ?? 1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

async function git(args: string[], cwd: string, signal?: AbortSignal): Promise<string> {
  const result = await runGit(args, { cwd, signal });
  if (result.code !== 0)
    throw new DocsChatError('git_failed', `git ${args[0]} failed: ${lastLine(result.stderr)}`, {
      hint: `Check the repository in ${cwd}, or delete that folder so the next sync clones afresh.`,
    });
  return result.stdout;
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  // git may echo the URL it was given: credentials in it are masked.
  return redactGitUrl(lines.filter((line) => line.startsWith('fatal:') || line.startsWith('error:')).at(-1) ?? lines.at(-1) ?? 'no output');
}

/** Turns a failed fetch into an error that names the setting to change. */
function fetchError(settings: { url: string; ref: string | null }, stderr: string): DocsChatError {
  const url = redactGitUrl(settings.url);
  const detail = lastLine(stderr);
  if (/couldn't find remote ref|not our ref|invalid refspec|bad revision/i.test(stderr)) {
    return new DocsChatError('git_ref_missing', `The ref "${settings.ref ?? 'HEAD'}" does not exist in ${url} (${detail}).`, {
      hint: `Set ${REF_SETTING} to a branch, tag or commit of that repository, or unset it for the default branch.`,
    });
  }
  if (
    /terminal prompts disabled|could not read (username|password)|authentication failed|permission denied|access denied|HTTP Basic: Access denied|401|403/i.test(
      stderr,
    )
  ) {
    return new DocsChatError('git_auth_required', `${url} asks for credentials, and docs-chat never types any (${detail}).`, {
      hint: `Give access without a prompt: put a read-only token in ${URL_SETTING} (https://<token>@host/owner/repo.git), or use an ssh URL with a deploy key loaded for the server's user.`,
    });
  }
  return new DocsChatError('git_unreachable', `The repository ${url} cannot be reached (${detail}).`, {
    hint: `Check ${URL_SETTING}: a URL git can fetch from this machine (https://, ssh://, git@host:path) or the path of a local repository.`,
    retryable: true,
  });
}

function cloneKey(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

function cleanSubdir(subdir: string | undefined): string | null {
  if (subdir === undefined) return null;
  const normal = path.posix.normalize(subdir.replace(/\\/g, '/')).replace(/^\/+|\/+$/g, '');
  if (normal === '' || normal === '.') return null;
  if (normal === '..' || normal.startsWith('../')) {
    throw new DocsChatError('config_invalid', `${PATH_SETTING}="${subdir}" points outside the repository.`, {
      hint: `Set ${PATH_SETTING} to a folder inside the repository, such as docs or website/docs.`,
    });
  }
  return normal;
}

/**
 * Brings the clone under `dataDir/git/` to the wanted ref and checks it out.
 * The clone stays locked until `release()`, so two syncs never move it under
 * each other. A failure leaves the index untouched (nothing was ingested yet).
 */
export async function checkoutGitSource(dataDir: string, settings: GitSourceSettings, signal?: AbortSignal): Promise<GitCheckout> {
  const url = normalizeGitUrl(settings.url);
  const ref = settings.ref?.trim() ? settings.ref.trim() : null;
  const subdir = cleanSubdir(settings.path);
  if (ref !== null && (ref.startsWith('-') || /\s/.test(ref))) {
    throw new DocsChatError('git_ref_missing', `${REF_SETTING}="${ref}" is not a valid ref.`, {
      hint: `Set ${REF_SETTING} to a branch, tag or commit name.`,
    });
  }
  const key = cloneKey(url);
  const dir = path.join(dataDir, 'git', key);
  const lock: PidLock = await acquirePidLock(
    path.join(dataDir, 'locks', `git-${key}.lock`),
    (owner) =>
      new DocsChatError(
        'ingest_locked',
        `Another git sync of ${redactGitUrl(url)} is running (pid ${owner.pid}, started ${owner.startedAt}).`,
        {
          hint: 'Wait for it to finish, then run the sync again.',
        },
      ),
  );
  let isRepository = false;
  try {
    await fs.mkdir(dir, { recursive: true });
    isRepository = await fs.stat(path.join(dir, '.git')).then(
      () => true,
      () => false,
    );
    if (!isRepository) {
      await git(['init', '--quiet'], dir, signal);
      await git(['remote', 'add', 'origin', url], dir, signal);
    } else {
      await git(['remote', 'set-url', 'origin', url], dir, signal);
    }
    // "--" ends the options: a ref can never be read as one.
    const fetched = await runGit(['fetch', '--quiet', '--no-tags', '--no-recurse-submodules', 'origin', '--', ref ?? 'HEAD'], {
      cwd: dir,
      signal,
    });
    if (fetched.code !== 0) throw fetchError({ url, ref }, fetched.stderr);
    // Fetching from a shallow repository "succeeds" with a warning and brings nothing.
    if (/shallow/i.test(fetched.stderr)) throw shallowError(url);
    const shallow = (await git(['rev-parse', '--is-shallow-repository'], dir, signal)).trim() === 'true';
    if (shallow) throw shallowError(url);
    const commit = (await git(['rev-parse', '--verify', '--quiet', 'FETCH_HEAD^{commit}'], dir, signal).catch(() => '')).trim();
    if (!/^[0-9a-f]{40,64}$/.test(commit)) {
      throw new DocsChatError('git_ref_missing', `"${ref ?? 'HEAD'}" in ${redactGitUrl(url)} does not name a commit.`, {
        hint: `Set ${REF_SETTING} to a branch, tag or commit of that repository.`,
      });
    }
    await git(['checkout', '--quiet', '--force', '--detach', commit], dir, signal);
    await git(['clean', '-ffdxq'], dir, signal);
    const docsDir = subdir ? path.join(dir, subdir) : dir;
    const stat = await fs.stat(docsDir).catch(() => null);
    if (!stat?.isDirectory()) {
      throw new DocsChatError(
        'docs_dir_missing',
        `The folder "${subdir}" does not exist at ${commit.slice(0, 12)} of ${redactGitUrl(url)}.`,
        {
          hint: `Set ${PATH_SETTING} to the repository folder holding the docs (for example docs), or unset it for the root.`,
        },
      );
    }
    return { dir, docsDir, commit, url, ref, path: subdir, release: () => lock.release() };
  } catch (error) {
    // A clone that never fetched anything (bad URL, bad ref) is not kept.
    if (!isRepository) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    await lock.release();
    throw error;
  }
}

function shallowError(url: string): DocsChatError {
  return new DocsChatError(
    'git_shallow',
    `The repository ${redactGitUrl(url)} is a shallow clone: its history is cut, so commits cannot be compared.`,
    {
      hint: `Point ${URL_SETTING} at a full clone (run \`git fetch --unshallow\` in it) or at the original remote.`,
    },
  );
}

export type ChangedFiles = { files: string[] } | { files: null; reason: string };

/**
 * Files (relative to the synced folder) that differ between two commits:
 * additions, modifications, deletions, and both sides of a rename. Null with
 * a reason when the old commit is gone or is not an ancestor (a force-push):
 * the caller then compares every file by content hash.
 */
export async function changedFilesBetween(checkout: GitCheckout, from: string, signal?: AbortSignal): Promise<ChangedFiles> {
  if (from === checkout.commit) return { files: [] };
  const exists = await runGit(['cat-file', '-e', `${from}^{commit}`], { cwd: checkout.dir, signal });
  if (exists.code !== 0) return { files: null, reason: `the last ingested commit ${from.slice(0, 12)} no longer exists (force-push)` };
  const ancestor = await runGit(['merge-base', '--is-ancestor', from, checkout.commit], { cwd: checkout.dir, signal });
  if (ancestor.code === 1)
    return {
      files: null,
      reason: `the last ingested commit ${from.slice(0, 12)} is not an ancestor of ${checkout.commit.slice(0, 12)} (force-push)`,
    };
  if (ancestor.code !== 0) return { files: null, reason: `git could not relate the commits (${lastLine(ancestor.stderr)})` };
  // --no-renames: a rename is a deletion plus an addition, which is what the index needs to hear.
  const output = await git(
    ['diff', '--name-only', '-z', '--no-renames', from, checkout.commit, '--', checkout.path ?? '.'],
    checkout.dir,
    signal,
  );
  const prefix = checkout.path ? `${checkout.path}/` : '';
  const files = output
    .split('\0')
    .filter(Boolean)
    .filter((file) => file.startsWith(prefix))
    .map((file) => file.slice(prefix.length));
  return { files };
}
