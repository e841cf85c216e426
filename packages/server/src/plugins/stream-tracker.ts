/**
 * Keeps count of answers still being generated so that a shutdown can let them
 * finish: `drain` waits up to the grace period, then aborts what is left (the
 * readers get a `shutting_down` error event and the partial answers are stored
 * as interrupted) and waits for that to be written.
 */
import { setMaxListeners } from 'node:events';
import { ServerShutdownError } from '../chat/chat-service.js';

/** How long aborted answers get to store their partial text after the grace period. */
const ABORT_SETTLE_MS = 2000;

export class StreamTracker {
  private readonly active = new Set<Promise<unknown>>();
  private readonly shutdown = new AbortController();

  constructor() {
    // Every answer in flight listens here (and stops listening when its response closes), so more than
    // Node's default of 10 listeners is normal load, not a leak: without this, the 11th concurrent answer
    // printed a "possible memory leak" warning on the server's stderr.
    setMaxListeners(Number.POSITIVE_INFINITY, this.shutdown.signal);
  }

  /** Aborted when the grace period of a shutdown has run out. */
  get shutdownSignal(): AbortSignal {
    return this.shutdown.signal;
  }

  get size(): number {
    return this.active.size;
  }

  track<T>(work: Promise<T>): Promise<T> {
    this.active.add(work);
    const forget = (): void => {
      this.active.delete(work);
    };
    work.then(forget, forget);
    return work;
  }

  /** Resolves with the number of answers that had to be cut short. */
  async drain(graceMs: number): Promise<number> {
    if (this.active.size === 0) return 0;
    const finished = await settleWithin([...this.active], graceMs);
    if (finished) return 0;
    const cut = this.active.size;
    this.shutdown.abort(new ServerShutdownError());
    await settleWithin([...this.active], ABORT_SETTLE_MS);
    return cut;
  }
}

async function settleWithin(work: Promise<unknown>[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const all = Promise.allSettled(work).then(() => true as const);
  const result = await Promise.race([all, timeout]);
  if (timer) clearTimeout(timer);
  return result;
}
