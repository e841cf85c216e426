/**
 * The processes the suite runs: `docs-chat serve` and `docs-chat ingest` as
 * real child processes on 127.0.0.1, with their output captured, and every
 * temporary directory and child remembered so one `cleanUp()` removes them
 * whatever happened.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI = path.join(REPO_ROOT, 'packages/server/src/cli.ts');
/** Resolved here so children can run from an empty working directory (no stray .env is read). */
const TSX_LOADER = import.meta.resolve('tsx');

const children = new Set<ChildProcess>();
const directories = new Set<string>();

export async function temporaryDirectory(label: string): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), `docs-chat-faults-${label}-`));
  directories.add(directory);
  return directory;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Only what the child needs: the runner's own environment (and any key in it) is not passed on. */
function childEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), ...env };
}

export function spawnTs(script: string, args: string[], env: Record<string, string>, cwd: string, nodeFlags: string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, '--import', TSX_LOADER, script, ...args], {
    cwd,
    env: childEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export interface ServerProcess {
  name: string;
  /** performance.now() of this runner when the process was spawned (its --trace-gc times count from about then). */
  spawnedAt: number;
  url: string;
  pid: number;
  /** Everything the server wrote to stdout (its JSON logs). */
  stdout(): string;
  stderr(): string;
  rssMb(): number;
  stop(): Promise<number | null>;
}

/** `nodeFlags` are for observing only (e.g. --trace-gc), never for changing how the server behaves. */
export async function startServerProcess(name: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const cwd = await temporaryDirectory(`${name}-cwd`);
  const spawnedAt = performance.now();
  const child = spawnTs(CLI, ['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' }, cwd, nodeFlags);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server ${name} exited (${child.exitCode}) before listening:\n${err}${out.slice(-2000)}`);
    try {
      await (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).arrayBuffer();
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server ${name} did not listen within 90 s:\n${err}`);
    await sleep(150);
  }
  return {
    name,
    spawnedAt,
    url,
    pid: child.pid!,
    stdout: () => out,
    stderr: () => err,
    rssMb: () => rssMbOf(child.pid!),
    stop: () => stopChild(child, 15_000),
  };
}

export function rssMbOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** Waits for a child to end and returns its exit code and output. */
export function completion(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** Every child still running is killed and every temporary directory removed. */
export async function cleanUp(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child, 5_000)));
  await Promise.all([...directories].map((directory) => rm(directory, { recursive: true, force: true })));
  directories.clear();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The process and every process under it (server processes of WORKERS > 1, an admin ingest), from Linux /proc. */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const pids = [rootPid];
  for (let index = 0; index < pids.length; index += 1) pids.push(...(children.get(pids[index]!) ?? []));
  return pids;
}
