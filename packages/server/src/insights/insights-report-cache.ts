/**
 * Keeps each period's insights report for a short while (INSIGHTS_CACHE_SECONDS,
 * default 30 s), so a dashboard refreshed by several admins, or reloaded, reads
 * the store once rather than once per view. At 100,000 stored questions a report
 * costs a few hundred milliseconds of database CPU (measured by
 * eval/src/bench-insights.ts); a cached one costs nothing.
 *
 * Requests that arrive while a report is being built wait for that build
 * instead of starting their own. A failed build is not kept: the next request
 * tries again. The report's `until` says how fresh it is.
 */
export class InsightsReportCache<Report> {
  readonly #entries = new Map<string, { promise: Promise<Report>; expiresAt: number }>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  /** `ttlMs` 0 builds every report afresh (only concurrent requests still share a build). */
  constructor(options: { ttlMs: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
  }

  /** The report of `period`, built by `build` when none younger than the time to live is kept. */
  get(period: string, build: () => Promise<Report>): Promise<Report> {
    const now = this.#now();
    // Expired reports leave on the next call: an admin trying many periods does not pile them up.
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    const kept = this.#entries.get(period);
    if (kept && kept.expiresAt > now) return kept.promise;
    const entry = { promise: build(), expiresAt: Number.POSITIVE_INFINITY };
    this.#entries.set(period, entry);
    entry.promise.then(
      () => {
        // The time to live counts from when the report is ready; until then, callers share the build.
        entry.expiresAt = this.#now() + this.#ttlMs;
        if (this.#ttlMs === 0 && this.#entries.get(period) === entry) this.#entries.delete(period);
      },
      () => {
        if (this.#entries.get(period) === entry) this.#entries.delete(period);
      },
    );
    return entry.promise;
  }
}
