/**
 * The heavy part of loading an embedded index, on a worker thread
 * (snapshot-check-worker.mjs): each file's SHA-256, the range check of the
 * postings' slots and the inversion of the page vectors. The event loop that
 * answers `/health` and streams only reads the files meanwhile. Budget: on a
 * 50,000-chunk index that work blocked the event loop for up to 0.5 s at a
 * time (eval/src/bench-retrieval.ts, synthetic index).
 */
import { Worker } from 'node:worker_threads';
import { DocsChatError } from '../errors.js';
import type { Postings } from './embedded-snapshot.js';

export interface FileToCheck {
  /** A descriptor the caller keeps open until `stop()` has resolved. */
  fd: number;
  bytes: number;
  /** Every uint32 in bytes [from, to) must be below `bound`. */
  slotsBelow?: { from: number; to: number; bound: number };
  /** The file is a page-vector block (see embedded-snapshot.ts): invert it too. */
  invertPages?: { pageCount: number; nonZeros: number };
}

export interface FileCheck {
  sha256: string;
  /** False when `slotsBelow` found a value out of range. */
  slotsInRange?: boolean;
  /** The inverted page vectors, when asked for and the file's layout holds together. */
  pageIndex?: Postings;
}

export interface SnapshotChecks {
  /**
   * One promise per file, in the order given. A file that could not be read rejects with a plain Error saying why;
   * a checking thread that failed or stopped rejects with a retryable `store_unavailable`: the index is not at fault.
   */
  readonly results: Promise<FileCheck>[];
  /** Stops the worker if it is still reading; the caller may close the descriptors once this resolves. */
  stop(): Promise<void>;
}

interface Pending {
  promise: Promise<FileCheck>;
  resolve: (check: FileCheck) => void;
  reject: (error: Error) => void;
  settled: boolean;
}

function pending(): Pending {
  let resolve: (check: FileCheck) => void = () => undefined;
  let reject: (error: Error) => void = () => undefined;
  const promise = new Promise<FileCheck>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // A caller that gives up on the load early never awaits the later files: that must not be an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject, settled: false };
}

type WorkerMessage = { index: number; error: string } | ({ index: number; error?: undefined } & FileCheck);

/** Starts one worker that checks `files` in order. */
export function checkSnapshotFiles(files: readonly FileToCheck[]): SnapshotChecks {
  const results = files.map(() => pending());
  if (files.length === 0) return { results: [], stop: () => Promise.resolve() };
  const settle = (index: number, outcome: { check: FileCheck } | { error: Error }): void => {
    const entry = results[index];
    if (!entry || entry.settled) return;
    entry.settled = true;
    if ('check' in outcome) entry.resolve(outcome.check);
    else entry.reject(outcome.error);
  };
  const failRest = (error: Error): void => results.forEach((_, index) => settle(index, { error }));

  const worker = new Worker(new URL('./snapshot-check-worker.mjs', import.meta.url), { workerData: { files } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('message', (message: WorkerMessage) => {
    if (message.error === undefined) {
      const { index, ...check } = message;
      settle(index, { check });
    } else {
      settle(message.index, { error: new Error(`could not be read to check it (${message.error})`) });
    }
  });
  const threadFailed = (detail: string, cause?: unknown): DocsChatError =>
    new DocsChatError('store_unavailable', `The embedded index could not be checked while loading: ${detail}.`, {
      hint: 'Try again; if it keeps happening the machine may be short of memory or threads (see the server log).',
      retryable: true,
      ...(cause === undefined ? {} : { cause }),
    });
  worker.on('error', (error) => failRest(threadFailed(`the checking thread failed (${error.message})`, error)));
  void exited.then(() => failRest(threadFailed('the checking thread stopped early')));

  return {
    results: results.map((entry) => entry.promise),
    async stop() {
      if (!results.every((entry) => entry.settled)) await worker.terminate();
      await exited;
    },
  };
}
