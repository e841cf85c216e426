/**
 * Run by memory-soft-limit.test.ts in a process of its own: keeps about 60 MB
 * of objects alive while it allocates garbage quickly (what a server does
 * under a flood of new questions), with or without the soft limit, and prints
 * the largest heap V8 reserved. `node --import tsx heap-churn.ts [limitMb]`.
 */
import v8 from 'node:v8';
import { startMemorySoftLimit } from '../../memory-soft-limit.js';

const limitMb = Number(process.argv[2] ?? 0);
const limit = limitMb > 0 ? startMemorySoftLimit({ limitMb, intervalMs: 20 }) : null;
let engaged = false;
const live: unknown[] = [];
let peak = 0;
for (let round = 0; round < 400; round++) {
  for (let index = 0; index < 2000; index++) live.push({ values: new Array(50).fill(round), text: `${'x'.repeat(100)}${index}` });
  if (live.length > 120_000) live.splice(0, 2000);
  const garbage: unknown[] = [];
  for (let index = 0; index < 20_000; index++) garbage.push({ index, pair: [index, index + 1] });
  peak = Math.max(peak, v8.getHeapStatistics().total_heap_size);
  // The timer cannot fire inside this loop, so check as it would between requests.
  limit?.check();
  engaged ||= limit?.engaged ?? false;
}
limit?.stop();
process.stdout.write(`${JSON.stringify({ peakHeapMb: Math.round(peak / 1048576), engaged })}\n`);
