/**
 * A lock file holding its owner's pid, host and start time, for resources one
 * process at a time may use (an ingest, an embedded database folder). A lock
 * left by a process that no longer runs is taken over, and so is one naming
 * this very process that it does not hold: containers reuse pids across
 * restarts. A lock from another host cannot be judged from here and is
 * respected.
 */
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface PidLock {
  readonly file: string;
  release(): Promise<void>;
}

export interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

/** Lock files this process holds right now. */
const heldByThisProcess = new Set<string>();

/**
 * True for a process that has exited but not been reaped yet (a zombie). A
 * killed ingest whose parent died with it is handed to the container's first
 * process, which may reap it late or, without an init, never; signal 0 still
 * reaches a zombie, so without this its lock would look held for good. Linux
 * only (`/proc`); elsewhere nothing is a zombie here.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (command) state ...": the command may hold spaces and parentheses, so read after the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

/** True while a process with this pid runs (a zombie does not count), whoever owns it. */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

async function readOwner(file: string): Promise<LockOwner | null> {
  try {
    const owner = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? (owner as LockOwner) : null;
  } catch {
    return null;
  }
}

function isStale(current: LockOwner | null, file: string): boolean {
  if (current === null) return true;
  if (current.host !== os.hostname()) return false;
  if (current.pid === process.pid) return !heldByThisProcess.has(file);
  return !processIsAlive(current.pid);
}

/**
 * Takes the lock file, or throws what `whenHeld` builds from the live owner
 * (an error whose message says what to do).
 */
export async function acquirePidLock(file: string, whenHeld: (owner: LockOwner) => Error): Promise<PidLock> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await fs.writeFile(file, JSON.stringify(owner), { flag: 'wx' });
      heldByThisProcess.add(file);
      let released = false;
      return {
        file,
        async release() {
          if (released) return;
          released = true;
          heldByThisProcess.delete(file);
          await fs.rm(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const current = await readOwner(file);
      if (!isStale(current, file)) throw whenHeld(current as LockOwner);
      await fs.rm(file, { force: true });
    }
  }
  const current = await readOwner(file);
  throw whenHeld(current ?? owner);
}
