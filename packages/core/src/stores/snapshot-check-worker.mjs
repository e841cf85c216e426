// Worker thread that checks an embedded index's files while the snapshot loads
// (snapshot-checks.ts), so the event loop that answers readers never runs the
// heavy part of a load. For each open file descriptor it is given, in order,
// it computes the SHA-256 and, where asked:
// - `slotsBelow`: checks that every uint32 in a byte range is below a bound
//   (the postings must name existing points);
// - `invertPages`: inverts the page vectors into postings (sparse-postings.mjs)
//   and hands them over without a copy.
// It posts `{ index, sha256, ... }` or `{ index, error }` per file.
//
// Budget: on a 50,000-chunk index that is 270 MB to hash (0.5 s of CPU), 10.8
// million slots to check (0.1 s) and 2.7 million page entries to invert (0.2
// s), which on the event loop came in blocks of up to 0.5 s.
//
// Plain JavaScript on purpose: a worker does not inherit the TypeScript loader
// (tsx, Jest) of the process that starts it. The descriptors stay open in the
// starting thread until every answer is in; descriptors belong to the process,
// so this thread reads the very files the loader opened, even if a newer
// commit has since removed them.
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { invertSparse } from './sparse-postings.mjs';

/** Bytes hashed per read (a multiple of 4, so uint32 ranges never straddle two reads). */
const BLOCK = 1 << 22;

/** Reads `length` bytes at `position` into `target`; returns how many it got (fewer at the file's end). */
function readInto(fd, target, length, position) {
  let done = 0;
  while (done < length) {
    const read = readSync(fd, target, done, length - done, position + done);
    if (read === 0) break;
    done += read;
  }
  return done;
}

function hashAndCheckSlots(fd, bytes, slotsBelow) {
  const block = Buffer.allocUnsafe(BLOCK);
  const hash = createHash('sha256');
  let slotsInRange = true;
  for (let position = 0; position < bytes; position += BLOCK) {
    const length = Math.min(BLOCK, bytes - position);
    const read = readInto(fd, block, length, position);
    if (read < length) return { error: `it ends after ${position + read} of ${bytes} bytes` };
    hash.update(block.subarray(0, read));
    if (slotsBelow && slotsInRange) {
      const from = Math.max(slotsBelow.from, position);
      const to = Math.min(slotsBelow.to, position + read);
      if (from < to) {
        const view = new Uint32Array(block.buffer, block.byteOffset + (from - position), (to - from) / 4);
        for (let i = 0; i < view.length; i++) {
          if (view[i] >= slotsBelow.bound) {
            slotsInRange = false;
            break;
          }
        }
      }
    }
  }
  return { sha256: hash.digest('hex'), slotsInRange };
}

function hashAndInvertPages(fd, bytes, { pageCount, nonZeros }) {
  const whole = new Uint8Array(bytes);
  const read = readInto(fd, whole, bytes, 0);
  if (read < bytes) return { error: `it ends after ${read} of ${bytes} bytes` };
  const sha256 = createHash('sha256').update(whole).digest('hex');
  if (bytes !== (pageCount + 1) * 4 + nonZeros * 8) return { sha256 };
  const offsets = new Uint32Array(whole.buffer, 0, pageCount + 1);
  const indices = new Uint32Array(whole.buffer, (pageCount + 1) * 4, nonZeros);
  const values = new Float32Array(whole.buffer, (pageCount + 1) * 4 + nonZeros * 4, nonZeros);
  // Damaged offsets are reported by the loader's own checks; inverting them could read out of bounds.
  if (offsets[pageCount] !== nonZeros) return { sha256 };
  for (let page = 0; page < pageCount; page++) if (offsets[page] > offsets[page + 1]) return { sha256 };
  return { sha256, pageIndex: invertSparse(offsets, indices, values, pageCount) };
}

/** @type {{ fd: number; bytes: number; slotsBelow?: { from: number; to: number; bound: number }; invertPages?: { pageCount: number; nonZeros: number } }[]} */
const files = workerData.files;

files.forEach((file, index) => {
  try {
    const outcome = file.invertPages
      ? hashAndInvertPages(file.fd, file.bytes, file.invertPages)
      : hashAndCheckSlots(file.fd, file.bytes, file.slotsBelow);
    const pageIndex = outcome.pageIndex;
    const transfer = pageIndex ? [pageIndex.terms.buffer, pageIndex.offsets.buffer, pageIndex.slots.buffer, pageIndex.values.buffer] : [];
    parentPort.postMessage({ index, ...outcome }, transfer);
  } catch (error) {
    parentPort.postMessage({ index, error: error instanceof Error ? error.message : String(error) });
  }
});
