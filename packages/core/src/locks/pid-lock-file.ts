/**
 * A lock file holding its owner's pid, host and start time, for resources one
 * process at a time may use (an ingest, an embedded database folder). A lock
 * left by a process that no longer runs is taken over, and so is one naming
 * this very process that it does not hold: containers reuse pids across
 * restarts. A lock from another host cannot be judged from here and is
 * respected.
 */
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

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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
