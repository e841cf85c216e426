import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { heapGrowthSetByOperator, NEAR_LIMIT_GROWING_PERCENT, startMemorySoftLimit } from './memory-soft-limit.js';

const MB = 1024 * 1024;
const CHURN = fileURLToPath(new URL('./__fixtures__/memory/heap-churn.ts', import.meta.url));

async function churn(limitMb: number): Promise<{ peakHeapMb: number; engaged: boolean }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHURN, String(limitMb)], { timeout: 60_000 });
  return JSON.parse(stdout) as { peakHeapMb: number; engaged: boolean };
}

describe('the soft memory limit (MEMORY_SOFT_LIMIT_MB)', () => {
  it('tightens the heap growth near the limit and gives it back once memory is well below, without flapping', () => {
    let rss = 200 * MB;
    const settings: number[] = [];
    const changes: [boolean, number][] = [];
    const limit = startMemorySoftLimit({
      limitMb: 300,
      readRss: () => rss,
      setGrowingPercent: (percent) => settings.push(percent),
      onChange: (engaged, rssMb) => changes.push([engaged, rssMb]),
      intervalMs: 60_000,
    });
    try {
      limit.check();
      expect(limit.engaged).toBe(false);
      rss = 280 * MB; // 93 % of the limit
      limit.check();
      expect(limit.engaged).toBe(true);
      // Just under the engage mark is not enough to let go: no switching back and forth around one value.
      rss = 270 * MB;
      limit.check();
      rss = 281 * MB;
      limit.check();
      expect(settings).toEqual([NEAR_LIMIT_GROWING_PERCENT]);
      rss = 240 * MB; // 80 %
      limit.check();
      expect(limit.engaged).toBe(false);
      expect(settings).toEqual([NEAR_LIMIT_GROWING_PERCENT, 0]);
      expect(changes).toEqual([
        [true, 280],
        [false, 240],
      ]);
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

  it('leaves the heap growth to an operator who passed --heap-growing-percent to node', () => {
    expect(heapGrowthSetByOperator(['--heap-growing-percent=50'], '')).toBe(true);
    expect(heapGrowthSetByOperator([], '--max-old-space-size=1024 --heap_growing_percent=20')).toBe(true);
    expect(heapGrowthSetByOperator(['--max-old-space-size=1024'], '--enable-source-maps')).toBe(false);
  });
});
