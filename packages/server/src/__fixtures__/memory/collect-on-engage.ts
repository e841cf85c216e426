/**
 * Run by memory-soft-limit.test.ts in a process of its own: leaves about 100 MB
 * of garbage on the heap, lets the soft limit switch on (its resident memory
 * read as over the limit), and prints the heap in use before and after, the
 * pause it reported, and whether the process's own context gained a `gc`.
 */
import { startMemorySoftLimit } from '../../memory-soft-limit.js';

let garbage: unknown[] | null = [];
for (let index = 0; index < 600_000; index++) garbage.push({ index, text: `${'y'.repeat(80)}${index}` });
garbage = null;
const before = process.memoryUsage().heapUsed;
let reported: { rssAfterMb: number; pauseMs: number } | undefined;
const limit = startMemorySoftLimit({
  limitMb: 1,
  onChange: (engaged, _rssMb, collection) => {
    if (engaged) reported = collection;
  },
  intervalMs: 60_000,
});
limit.check();
const after = process.memoryUsage().heapUsed;
limit.stop();
process.stdout.write(
  `${JSON.stringify({ beforeMb: Math.round(before / 1048576), afterMb: Math.round(after / 1048576), reported, globalGc: typeof (globalThis as { gc?: unknown }).gc })}\n`,
);
