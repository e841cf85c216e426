/**
 * Merges small requests that arrive while every worker is busy into one batch.
 *
 * The neural encoder costs about 13 ms of CPU for one question on its own and
 * about 8 ms per question in a batch of 8 (measured on this project's 2-core
 * host, issue 16: CPU per answer and first-token time with uncached questions).
 * A request that finds a worker idle is sent at once, so a lone reader waits for
 * nothing; requests that arrive while the workers are busy wait together and go
 * as one batch when a worker frees up. Requests are never split: a request
 * larger than a batch (an ingest's) goes alone.
 */
import { DocsChatError } from '../errors.js';
import { serviceBusyError } from './worker-pool.js';

export interface RequestBatcherOptions<Item, Output> {
  /** Runs one batch; resolves with one output per item, in order. */
  runBatch(items: Item[]): Promise<Output[]>;
  /** Items per batch, at most (a larger request still goes, alone). */
  maxBatchItems: number;
  /** Batches running at once: the workers behind `runBatch`. */
  concurrency: number;
  /** Requests that may wait; more are refused at once with `service_busy`. */
  maxWaiting: number;
  /** Names the work in messages ("The neural embedder"). */
  label: string;
}

export interface RequestBatcher<Item, Output> {
  /** Resolves with one output per item once the batch holding the request is done. */
  submit(items: Item[], signal?: AbortSignal): Promise<Output[]>;
  /** Requests waiting for a batch. */
  readonly waiting: number;
  /** Rejects every waiting request with `error` (running batches finish or fail on their own). */
  rejectWaiting(error: unknown): void;
}

interface Waiting<Item, Output> {
  items: Item[];
  resolve: (outputs: Output[]) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  settled: boolean;
}

function cancelled(): DocsChatError {
  return new DocsChatError('aborted', 'The request was cancelled.');
}

export function createRequestBatcher<Item, Output>(options: RequestBatcherOptions<Item, Output>): RequestBatcher<Item, Output> {
  const concurrency = Math.max(1, Math.trunc(options.concurrency));
  const maxBatchItems = Math.max(1, Math.trunc(options.maxBatchItems));
  const queue: Waiting<Item, Output>[] = [];
  let running = 0;

  function settle(request: Waiting<Item, Output>, outcome: { outputs: Output[] } | { error: unknown }): void {
    if (request.settled) return;
    request.settled = true;
    if (request.onAbort) request.signal?.removeEventListener('abort', request.onAbort);
    if ('outputs' in outcome) request.resolve(outcome.outputs);
    else request.reject(outcome.error);
  }

  function nextBatch(): Waiting<Item, Output>[] {
    const batch = [queue.shift()!];
    let items = batch[0]!.items.length;
    while (queue.length > 0 && items + queue[0]!.items.length <= maxBatchItems) {
      const request = queue.shift()!;
      items += request.items.length;
      batch.push(request);
    }
    return batch;
  }

  function dispatch(): void {
    while (running < concurrency && queue.length > 0) {
      const batch = nextBatch();
      running += 1;
      void options
        .runBatch(batch.flatMap((request) => request.items))
        .then(
          (outputs) => {
            let offset = 0;
            for (const request of batch) {
              settle(request, { outputs: outputs.slice(offset, offset + request.items.length) });
              offset += request.items.length;
            }
          },
          (error: unknown) => {
            for (const request of batch) settle(request, { error });
          },
        )
        .finally(() => {
          running -= 1;
          dispatch();
        });
    }
  }

  return {
    get waiting() {
      return queue.length;
    },
    rejectWaiting(error) {
      for (const request of queue.splice(0)) settle(request, { error });
    },
    submit(items, signal) {
      if (signal?.aborted) return Promise.reject(cancelled());
      // A request a batch can take at once never waits; beyond the running batches `maxWaiting` may wait.
      if (running + queue.length >= concurrency + options.maxWaiting) {
        return Promise.reject(serviceBusyError(options.label, `${queue.length} requests are`));
      }
      return new Promise<Output[]>((resolve, reject) => {
        const request: Waiting<Item, Output> = { items, resolve, reject, signal, onAbort: undefined, settled: false };
        if (signal) {
          // A running batch cannot be interrupted: an abort frees the caller at once and drops a waiting request.
          request.onAbort = () => {
            const index = queue.indexOf(request);
            if (index !== -1) queue.splice(index, 1);
            settle(request, { error: cancelled() });
          };
          signal.addEventListener('abort', request.onAbort, { once: true });
        }
        queue.push(request);
        dispatch();
      });
    },
  };
}
