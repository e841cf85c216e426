/**
 * A soft memory limit for one server process (MEMORY_SOFT_LIMIT_MB), in the
 * spirit of Go's GOMEMLIMIT: below it V8 sizes its heaps as it likes; near it,
 * V8 is told to grow the heap by at most 30 % over what was live at its last
 * full collection, so garbage is collected sooner instead of piling up.
 *
 * Why not always: set for a whole run (`node --heap-growing-percent=30`), the
 * tighter growth measured 1.40–1.56 ms of CPU per answer at 200 readers with
 * repeated questions, the common case, against 1.18–1.24 ms without (one run
 * of three rounds each, same host and hour), where memory stays under 300 MB
 * anyway; an earlier day's run on a slower host saw new questions wait longer
 * with it. With every question new, V8's own growth took the process to
 * 299–321 MB. Switched on near the limit only, it kept two such runs at
 * 295–305 MB, and the repeated-question run, where it switched on at 277 MB,
 * at 1.20–1.29 ms. Switched on at 80 % instead, new questions peaked the same
 * (293–302 MB) while repeated ones cost 1.44–1.60 ms: hence 92 % (issue 16
 * budget: 300 MB per server process; benchmarks.md, "A soft memory limit").
 * It lets go again once memory has stayed well below the limit for 30 s.
 *
 * The tighter growth counts from V8's next full collection, and V8 set the
 * point of that one at its last, with its own factor of up to 4: a heap can
 * go on growing well past the limit before then (two 200-reader phases of
 * eight peaked at 306-307 MB with repeated questions, the main thread's heap
 * 95 MB in use of 125, against 40-60 MB in the others). So when the limit
 * engages, one full collection runs at once: it frees that garbage (V8 gives
 * the pages back over the next seconds) and sets the next collection's point
 * by the tighter growth. It
 * pauses the event loop once, for a few tens of milliseconds (measured and
 * logged), where the heap would otherwise have grown by tens of megabytes.
 *
 * V8 reads `--heap-growing-percent` afresh at each collection, and Node keeps
 * V8's flags writable after start-up, so `v8.setFlagsFromString` can switch it
 * on and off while the server runs. An operator who passes the flag to `node`
 * keeps it: the limit then does nothing.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** The heap growth near the limit: 1.3 times the live heap (V8's own factor goes up to 4 on a machine with memory to spare). */
export const NEAR_LIMIT_GROWING_PERCENT = 30;
/** Engages at this share of the limit, and lets go below the lower one (hysteresis, so it does not flap). */
export const ENGAGE_SHARE = 0.92;
export const RELEASE_SHARE = 0.82;
/**
 * Checks in a row (seconds) memory must stay below the lower mark before the tighter growth is let go. The
 * collection on switching on can itself take memory under that mark at once; letting go then would hand V8 its
 * own growth back, and the next climb would cost another pause.
 */
export const RELEASE_AFTER_CHECKS = 30;
const CHECK_INTERVAL_MS = 1000;

export interface MemorySoftLimitOptions {
  limitMb: number;
  /** Resident memory in bytes; the process's own by default. */
  readRss?: () => number;
  /** Sets V8's heap growth (0 = V8's own). */
  setGrowingPercent?: (percent: number) => void;
  /** Runs one full garbage collection now; by default V8's own, through its `gc` extension. */
  collectGarbage?: () => void;
  /**
   * Told when the tighter growth is switched on or off; on switching on, with the resident memory after the
   * collection that follows and how long that collection held the event loop.
   */
  onChange?: (engaged: boolean, rssMb: number, collection?: { rssAfterMb: number; pauseMs: number }) => void;
  intervalMs?: number;
}

export interface MemorySoftLimit {
  /** Checks the resident memory now (the timer does so every second). */
  check(): void;
  readonly engaged: boolean;
  /** Stops watching and gives V8 its own heap growth back. */
  stop(): void;
}

/** True when `node` was started with the flag (on its command line or in NODE_OPTIONS): the operator's choice wins. */
export function heapGrowthSetByOperator(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): boolean {
  const named = (argument: string) => /^--heap[-_]growing[-_]percent(=|$)/.test(argument);
  return execArgv.some(named) || nodeOptions.split(/\s+/).some(named);
}

function setV8GrowingPercent(percent: number): void {
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

let v8Collect: (() => void) | undefined;

/**
 * V8's full collection. Its `gc` function is only given to contexts made while `--expose-gc` is set, so the flag
 * is set for one new context and cleared again: the server's own context never gets a global `gc`.
 */
function collectWithV8(): void {
  if (!v8Collect) {
    v8.setFlagsFromString('--expose-gc');
    try {
      v8Collect = vm.runInNewContext('gc') as () => void;
    } finally {
      v8.setFlagsFromString('--no-expose-gc');
    }
  }
  v8Collect();
}

const toMb = (bytes: number): number => Math.round(bytes / (1024 * 1024));

export function startMemorySoftLimit(options: MemorySoftLimitOptions): MemorySoftLimit {
  const readRss = options.readRss ?? (() => process.memoryUsage.rss());
  const setGrowingPercent = options.setGrowingPercent ?? setV8GrowingPercent;
  const collectGarbage = options.collectGarbage ?? collectWithV8;
  const engageBytes = options.limitMb * ENGAGE_SHARE * 1024 * 1024;
  const releaseBytes = options.limitMb * RELEASE_SHARE * 1024 * 1024;
  let engaged = false;
  let checksBelow = 0;
  const check = (): void => {
    const rss = readRss();
    checksBelow = engaged && rss < releaseBytes ? checksBelow + 1 : 0;
    const next = engaged ? checksBelow < RELEASE_AFTER_CHECKS : rss >= engageBytes;
    if (next === engaged) return;
    engaged = next;
    setGrowingPercent(engaged ? NEAR_LIMIT_GROWING_PERCENT : 0);
    if (!engaged) {
      options.onChange?.(false, toMb(rss));
      return;
    }
    const started = performance.now();
    collectGarbage();
    const pauseMs = Math.round(performance.now() - started);
    options.onChange?.(true, toMb(rss), { rssAfterMb: toMb(readRss()), pauseMs });
  };
  const timer = setInterval(check, options.intervalMs ?? CHECK_INTERVAL_MS);
  timer.unref();
  return {
    check,
    get engaged() {
      return engaged;
    },
    stop() {
      clearInterval(timer);
      if (engaged) setGrowingPercent(0);
      engaged = false;
    },
  };
}
