import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { heapGrowthSetByOperator, NEAR_LIMIT_GROWING_PERCENT, RELEASE_AFTER_CHECKS, startMemorySoftLimit } from './memory-soft-limit.js';

const MB = 1024 * 1024;
const CHURN = fileURLToPath(new URL('./__fixtures__/memory/heap-churn.ts', import.meta.url));
const COLLECT = fileURLToPath(new URL('./__fixtures__/memory/collect-on-engage.ts', import.meta.url));

async function churn(limitMb: number): Promise<{ peakHeapMb: number; engaged: boolean }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHURN, String(limitMb)], { timeout: 60_000 });
  return JSON.parse(stdout) as { peakHeapMb: number; engaged: boolean };
}

describe('the soft memory limit (MEMORY_SOFT_LIMIT_MB)', () => {
  it('tightens the heap growth near the limit and gives it back once memory is well below, without flapping', () => {
    let rss = 200 * MB;
    const settings: number[] = [];
    const changes: [boolean, number, number | undefined][] = [];
    let collections = 0;
    const limit = startMemorySoftLimit({
      limitMb: 300,
      readRss: () => rss,
      setGrowingPercent: (percent) => settings.push(percent),
      // The collection frees what the heap had piled up.
      collectGarbage: () => {
        collections += 1;
        rss -= 20 * MB;
      },
      onChange: (engaged, rssMb, collection) => changes.push([engaged, rssMb, collection?.rssAfterMb]),
      intervalMs: 60_000,
    });
    try {
      limit.check();
      expect(limit.engaged).toBe(false);
      rss = 280 * MB; // 93 % of the limit
      limit.check();
      expect(limit.engaged).toBe(true);
      // Switching on collects once at once, so the tighter growth counts from now rather than from V8's next collection.
      expect(collections).toBe(1);
      // Just under the engage mark is not enough to let go: no switching back and forth around one value.
      rss = 270 * MB;
      limit.check();
      rss = 281 * MB;
      limit.check();
      expect(settings).toEqual([NEAR_LIMIT_GROWING_PERCENT]);
      // Well below (80 %) lets go only after it lasts: the collection itself may bring memory there at once.
      rss = 240 * MB;
      for (let second = 1; second < RELEASE_AFTER_CHECKS; second++) limit.check();
      expect(limit.engaged).toBe(true);
      rss = 250 * MB; // back above the lower mark: the count starts again
      limit.check();
      rss = 240 * MB;
      for (let second = 1; second < RELEASE_AFTER_CHECKS; second++) limit.check();
      expect(limit.engaged).toBe(true);
      limit.check();
      expect(limit.engaged).toBe(false);
      expect(settings).toEqual([NEAR_LIMIT_GROWING_PERCENT, 0]);
      expect(changes).toEqual([
        [true, 280, 260],
        [false, 240, undefined],
      ]);
      // Staying near the limit never collects again: one pause per time it switches on.
      expect(collections).toBe(1);
      rss = 290 * MB;
      limit.check();
    } finally {
      limit.stop();
    }
    // Stopping while engaged gives V8 its own growth back.
    expect(settings).toEqual([NEAR_LIMIT_GROWING_PERCENT, 0, NEAR_LIMIT_GROWING_PERCENT, 0]);
  });

  it('keeps a process that churns through garbage at a much smaller heap than V8 left alone', async () => {
    const alone = await churn(0);
    const limited = await churn(128);
    expect(limited.engaged).toBe(true);
    expect(limited.peakHeapMb).toBeLessThan(alone.peakHeapMb * 0.7);
  }, 120_000);

  it('frees the garbage a heap holds when it switches on, without giving the process a global gc', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', COLLECT], { timeout: 60_000 });
    const result = JSON.parse(stdout) as {
      beforeMb: number;
      afterMb: number;
      reported?: { rssAfterMb: number; pauseMs: number };
      globalGc: string;
    };
    expect(result.beforeMb).toBeGreaterThan(60);
    expect(result.afterMb).toBeLessThan(result.beforeMb / 2);
    expect(result.reported?.pauseMs).toEqual(expect.any(Number));
    expect(result.reported?.rssAfterMb).toBeGreaterThan(0);
    expect(result.globalGc).toBe('undefined');
  }, 60_000);

  it('leaves the heap growth to an operator who passed --heap-growing-percent to node', () => {
    expect(heapGrowthSetByOperator(['--heap-growing-percent=50'], '')).toBe(true);
    expect(heapGrowthSetByOperator([], '--max-old-space-size=1024 --heap_growing_percent=20')).toBe(true);
    expect(heapGrowthSetByOperator(['--max-old-space-size=1024'], '--enable-source-maps')).toBe(false);
  });
});
