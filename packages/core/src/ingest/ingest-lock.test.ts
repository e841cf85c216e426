import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { acquireIngestLock } from './ingest-lock.js';
import { DocsChatError } from '../errors.js';

describe('ingest lock', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-lock-'));
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a second ingest while the first holds the lock, with a message saying what to do', async () => {
    const first = await acquireIngestLock(dataDir, 'book');
    const second = acquireIngestLock(dataDir, 'book');
    await expect(second).rejects.toBeInstanceOf(DocsChatError);
    await expect(acquireIngestLock(dataDir, 'book')).rejects.toMatchObject({
      code: 'ingest_locked',
      hint: expect.stringContaining('Wait'),
    });
    await first.release();
    const third = await acquireIngestLock(dataDir, 'book');
    await third.release();
  });

  it('takes over a lock left behind by a process that was killed', async () => {
    await fs.mkdir(path.join(dataDir, 'locks'), { recursive: true });
    await fs.writeFile(
      path.join(dataDir, 'locks', 'ingest-book.lock'),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname(), startedAt: '2026-01-01T00:00:00Z' }),
    );
    const lock = await acquireIngestLock(dataDir, 'book');
    await lock.release();
  });

  it('takes over a lock left by a killed process that is not reaped yet (a zombie, as under a container without init)', async () => {
    // The shell starts `sleep 0` in the background, prints its pid and becomes `sleep 30`, which never reaps it:
    // once `sleep 0` exits it stays a zombie until the shell's process ends.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [firstLine] = (await once(parent.stdout, 'data')) as [Buffer];
      const zombie = Number(firstLine.toString().trim());
      const state = async () => {
        const stat = await fs.readFile(`/proc/${zombie}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
      };
      for (let waited = 0; (await state()) !== 'Z' && waited < 5000; waited += 20) await new Promise((done) => setTimeout(done, 20));
      expect(await state()).toBe('Z');
      await fs.mkdir(path.join(dataDir, 'locks'), { recursive: true });
      await fs.writeFile(
        path.join(dataDir, 'locks', 'ingest-book.lock'),
        JSON.stringify({ pid: zombie, host: os.hostname(), startedAt: '2026-01-01T00:00:00Z' }),
      );
      const lock = await acquireIngestLock(dataDir, 'book');
      await lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('takes over a lock that names this process when it was left by an earlier run reusing the pid (containers)', async () => {
    await fs.mkdir(path.join(dataDir, 'locks'), { recursive: true });
    await fs.writeFile(
      path.join(dataDir, 'locks', 'ingest-book.lock'),
      JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: '2026-01-01T00:00:00Z' }),
    );
    const lock = await acquireIngestLock(dataDir, 'book');
    await expect(acquireIngestLock(dataDir, 'book')).rejects.toMatchObject({ code: 'ingest_locked' });
    await lock.release();
  });

  it('keeps separate locks for separate collections', async () => {
    const a = await acquireIngestLock(dataDir, 'a');
    const b = await acquireIngestLock(dataDir, 'b');
    await a.release();
    await b.release();
  });
});
