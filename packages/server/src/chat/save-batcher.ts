/**
 * Group commit for the saves of answers (the final state, and the text so far
 * while an answer streams). Under load many answers save within a few
 * milliseconds of each other; their saves then go to the database as one
 * statement instead of one each.
 *
 * Budget: server CPU per answer <= 2.0 ms at 200 readers (issue 16). Each
 * round trip to Postgres costs the server a socket write and read and the
 * driver's work. Final saves arriving 190 a second, as answers end in the chat
 * benchmark at 200 readers, cost the server 0.22-0.24 ms of CPU each one by one
 * and 0.16-0.17 ms batched (`eval/src/bench-answer-saves.ts`, 2026-12-01). With
 * a real model an answer also saves its text every second while it streams, so
 * a busy server makes several such saves per answer.
 *
 * A lone save is never held back: a save waits for company only while saves
 * arrive closer together than `lingerMs`, so a quiet server answers as soon as
 * before.
 */

export interface SaveBatcherOptions<Item> {
  /** Writes one batch (one statement); its failure fails every save in it. */
  write(batch: readonly Item[]): Promise<void>;
  /** While saves arrive less than this apart, a save waits up to this long for others to join it. */
  lingerMs: number;
  /** A batch is written at once when it holds this many saves. */
  maxBatch: number;
  now?: () => number;
}

interface Waiting<Item> {
  item: Item;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class SaveBatcher<Item> {
  readonly #options: SaveBatcherOptions<Item>;
  readonly #now: () => number;
  #queue: Waiting<Item>[] = [];
  #timer: { kind: 'timeout'; handle: NodeJS.Timeout } | { kind: 'immediate'; handle: NodeJS.Immediate } | null = null;
  #writing: Promise<void> | null = null;
  #lastArrival = Number.NEGATIVE_INFINITY;

  constructor(options: SaveBatcherOptions<Item>) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Resolves once the save is written, in a batch with whichever saves joined it. */
  save(item: Item): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      const now = this.#now();
      const busy = now - this.#lastArrival < this.#options.lingerMs;
      this.#lastArrival = now;
      // A batch being written takes the next one along when it is done.
      if (this.#writing) return;
      if (this.#queue.length >= this.#options.maxBatch) {
        this.#writeNow();
        return;
      }
      if (this.#timer) return;
      // Saves of the same turn of the event loop always go together; a busy server waits a little for more.
      this.#timer = busy
        ? { kind: 'timeout', handle: setTimeout(() => this.#writeNow(), this.#options.lingerMs) }
        : { kind: 'immediate', handle: setImmediate(() => this.#writeNow()) };
    });
  }

  /** Writes what is waiting now and resolves when every save made so far is written (or has failed). */
  async flush(): Promise<void> {
    while (this.#queue.length > 0 || this.#writing) {
      if (!this.#writing) this.#writeNow();
      await this.#writing;
    }
  }

  #clearTimer(): void {
    if (this.#timer?.kind === 'timeout') clearTimeout(this.#timer.handle);
    else if (this.#timer?.kind === 'immediate') clearImmediate(this.#timer.handle);
    this.#timer = null;
  }

  #writeNow(): void {
    this.#clearTimer();
    if (this.#writing || this.#queue.length === 0) return;
    const batch = this.#queue.splice(0, this.#options.maxBatch);
    let written: Promise<void>;
    try {
      written = this.#options.write(batch.map((waiting) => waiting.item));
    } catch (error) {
      written = Promise.reject(error);
    }
    // The batch is done before its callers hear of it, so the saves they make next are batched afresh.
    const finished = (): void => {
      this.#writing = null;
      // The saves that came in while it was written have waited for it already: they go now.
      if (this.#queue.length > 0) this.#writeNow();
    };
    this.#writing = written.then(
      () => {
        finished();
        for (const waiting of batch) waiting.resolve();
      },
      (error: unknown) => {
        finished();
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }
}
