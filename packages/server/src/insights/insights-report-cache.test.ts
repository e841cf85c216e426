import { InsightsReportCache } from './insights-report-cache.js';

function counter(): { build: () => Promise<number>; builds: () => number } {
  let builds = 0;
  return { build: async () => ++builds, builds: () => builds };
}

describe('InsightsReportCache', () => {
  it('serves the same report of a period until its time to live has passed, then builds it anew', async () => {
    let now = 1_000;
    const cache = new InsightsReportCache<number>({ ttlMs: 30_000, now: () => now });
    const { build, builds } = counter();
    await expect(cache.get('7d', build)).resolves.toBe(1);
    now += 29_000;
    await expect(cache.get('7d', build)).resolves.toBe(1);
    now += 1_000;
    await expect(cache.get('7d', build)).resolves.toBe(2);
    expect(builds()).toBe(2);
  });

  it('keeps each period apart', async () => {
    const cache = new InsightsReportCache<string>({ ttlMs: 30_000 });
    await cache.get('7d', async () => 'week');
    await expect(cache.get('30d', async () => 'month')).resolves.toBe('month');
    await expect(cache.get('7d', async () => 'other')).resolves.toBe('week');
  });

  it('lets requests that arrive during a build share it, even with the cache off', async () => {
    const cache = new InsightsReportCache<number>({ ttlMs: 0 });
    let release: (value: number) => void = () => undefined;
    let builds = 0;
    const build = () => {
      builds += 1;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const first = cache.get('7d', build);
    const second = cache.get('7d', build);
    release(42);
    await expect(Promise.all([first, second])).resolves.toEqual([42, 42]);
    expect(builds).toBe(1);
    // Off: the next request after the build builds again.
    await expect(cache.get('7d', async () => 43)).resolves.toBe(43);
  });

  it('does not keep a failed build: the next request tries again', async () => {
    const cache = new InsightsReportCache<number>({ ttlMs: 30_000 });
    await expect(cache.get('7d', async () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    await expect(cache.get('7d', async () => 7)).resolves.toBe(7);
  });
});
