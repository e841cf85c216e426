import { createHash } from 'node:crypto';
import { mkdtemp, open, rm, truncate, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDocsChatError } from '../errors.js';
import { checkSnapshotFiles } from './snapshot-checks.js';
import { invertSparse } from './sparse-postings.mjs';

let directory: string;
const handles: FileHandle[] = [];

async function openFile(name: string, bytes: Uint8Array): Promise<FileHandle> {
  await writeFile(join(directory, name), bytes);
  const handle = await open(join(directory, name), 'r');
  handles.push(handle);
  return handle;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'docs-chat-snapshot-checks-'));
});

afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.close()));
  await rm(directory, { recursive: true, force: true });
});

describe('checking snapshot files on a worker thread', () => {
  it('gives each file its SHA-256, says whether the slots are in range, and inverts the page vectors', async () => {
    const plain = new Uint8Array(Array.from({ length: 10_000 }, (_, i) => i % 251));
    // Slots at bytes 8..24 of this file: 4 uint32 values, the third out of range for a bound of 5.
    const slots = new Uint8Array(new Uint32Array([7, 7, 1, 4, 9, 2, 7, 7]).buffer);
    // Two pages: page 0 holds terms 30 and 10, page 1 holds term 10.
    const pages = new Uint8Array([
      ...new Uint8Array(new Uint32Array([0, 2, 3, 30, 10, 10]).buffer),
      ...new Uint8Array(new Float32Array([0.5, 1, 2]).buffer),
    ]);
    const files = [
      await openFile('plain', plain),
      await openFile('slots', slots),
      await openFile('slots-ok', slots),
      await openFile('pages', pages),
    ];
    const checks = checkSnapshotFiles([
      { fd: files[0]!.fd, bytes: plain.byteLength },
      { fd: files[1]!.fd, bytes: slots.byteLength, slotsBelow: { from: 8, to: 24, bound: 5 } },
      { fd: files[2]!.fd, bytes: slots.byteLength, slotsBelow: { from: 8, to: 24, bound: 10 } },
      { fd: files[3]!.fd, bytes: pages.byteLength, invertPages: { pageCount: 2, nonZeros: 3 } },
    ]);
    const [first, outOfRange, inRange, inverted] = await Promise.all(checks.results);
    await checks.stop();
    expect(first?.sha256).toBe(sha256(plain));
    expect(outOfRange).toMatchObject({ sha256: sha256(slots), slotsInRange: false });
    expect(inRange).toMatchObject({ sha256: sha256(slots), slotsInRange: true });
    expect(inverted?.sha256).toBe(sha256(pages));
    const expected = invertSparse(new Uint32Array([0, 2, 3]), new Uint32Array([30, 10, 10]), new Float32Array([0.5, 1, 2]), 2);
    expect(inverted?.pageIndex).toEqual(expected);
    expect(Array.from(inverted?.pageIndex?.terms ?? [])).toEqual([10, 30]);
  });

  it('reports a file that ends before the bytes it should hold, and still checks the others', async () => {
    const short = await openFile('short', new Uint8Array(100));
    const whole = await openFile('whole', new Uint8Array(50));
    const checks = checkSnapshotFiles([
      { fd: short.fd, bytes: 400 },
      { fd: whole.fd, bytes: 50 },
    ]);
    await expect(checks.results[0]).rejects.toThrow(/could not be read to check it \(it ends after 100 of 400 bytes\)/);
    await expect(checks.results[1]).resolves.toMatchObject({ sha256: sha256(new Uint8Array(50)) });
    await checks.stop();
  });

  it('fails what it had not checked with a retryable store_unavailable when the thread is stopped, never a damaged index', async () => {
    // Large enough (4 x 64 MB of zeros) that the thread cannot finish before it is stopped.
    const files: FileHandle[] = [];
    for (let i = 0; i < 4; i++) {
      const handle = await openFile(`big-${i}`, new Uint8Array(0));
      await truncate(join(directory, `big-${i}`), 64 << 20);
      files.push(handle);
    }
    const checks = checkSnapshotFiles(files.map((handle) => ({ fd: handle.fd, bytes: 64 << 20 })));
    await checks.stop();
    const outcomes = await Promise.allSettled(checks.results);
    const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(isDocsChatError(failure.reason) && failure.reason.code).toBe('store_unavailable');
      expect(isDocsChatError(failure.reason) && failure.reason.retryable).toBe(true);
    }
  });
});
