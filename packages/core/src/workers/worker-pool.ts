/**
 * A small pool of worker threads for CPU-heavy work (model inference), so the
 * event loop that serves readers never runs it. Tasks wait in one bounded
 * queue: when it is full the caller gets `service_busy` (retryable) at once,
 * instead of a queue that grows until every waiting reader times out.
 *
 * Workers speak a tiny protocol: the pool posts `{ id, task }`, the worker
 * answers `{ id, result }` or `{ id, error: { message, code?, hint? } }`; a
 * worker first posts `{ ready: true }` or `{ ready: false, error }` once it has
 * loaded what it needs. Workers start lazily, on the first task.
 *
 * With `batching`, tasks that wait while every worker is busy go to the next
 * free worker merged into one task (never split, at most `maxItems` items):
 * the neural encoder costs about 13 ms of CPU for one question alone and about
 * 8 ms per question in a batch of 8 (measured on this project's 2-core host,
 * issue 16), so under load each search costs less and waits less. A task that
 * finds a worker idle goes at once, alone.
 */
import { Worker, type TransferListItem } from 'node:worker_threads';
import { DocsChatError, type DocsChatErrorCode } from '../errors.js';

export interface WorkerPoolOptions {
  /** The worker script (plain JavaScript: workers do not inherit a TypeScript loader). */
  script: URL;
  /** Data every worker receives as `workerData`. */
  workerData?: unknown;
  /** Worker threads (at least 1). */
  size: number;
  /** Tasks that may wait for a free worker; more are refused with `service_busy`. */
  maxQueue: number;
  /** Names the work in messages ("The neural embedder"). */
  label: string;
  /** Caps each worker's young generation (V8 semi-spaces), in MB; V8's default when unset. */
  youngGenerationMb?: number;
}

/** How waiting tasks merge into one and how the merged result splits back, one part per task. */
export interface TaskBatching<Task, Result> {
  /** Items one merged task holds at most; a task larger than that still runs, alone. */
  maxItems: number;
  items(task: Task): number;
  merge(tasks: Task[]): Task;
  /** One result per task, in order; a throw fails every task of the batch. */
  split(result: Result, tasks: Task[]): Result[];
}

export interface WorkerPool<Task, Result> {
  /** Runs a task on a free worker; rejects with `service_busy` when the queue is full. */
  run(task: Task, options?: { signal?: AbortSignal | undefined; transfer?: TransferListItem[] }): Promise<Result>;
  /** Tasks waiting plus tasks running. */
  readonly pending: number;
  readonly size: number;
  /** Stops every worker; waiting and running tasks reject. */
  close(): Promise<void>;
}

interface WorkerError {
  message: string;
  code?: DocsChatErrorCode;
  hint?: string;
}

interface Job<Task, Result> {
  task: Task;
  transfer: TransferListItem[] | undefined;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Slot<Task, Result> {
  worker: Worker;
  state: 'starting' | 'ready' | 'gone';
  /** The tasks the worker is running, merged into one when batching; empty when idle. */
  jobs: Job<Task, Result>[];
  jobId: number;
}

function toError(error: WorkerError): DocsChatError {
  return new DocsChatError(error.code ?? 'embedder_unavailable', error.message, error.hint ? { hint: error.hint } : {});
}

/** The refusal of a full queue: retryable, with what an admin can do about it. */
function serviceBusyError(label: string, waiting: number): DocsChatError {
  const why = waiting === 0 ? 'every thread is working' : `${waiting} ${waiting === 1 ? 'task is' : 'tasks are'} already waiting`;
  return new DocsChatError('service_busy', `${label} is busy: ${why}.`, {
    hint: 'Try again in a moment. An admin can give it more threads (EMBEDDING_THREADS) on a machine with more cores.',
    retryable: true,
    retryAfterMs: 1000,
  });
}

export function createWorkerPool<Task, Result>(
  options: WorkerPoolOptions & { batching?: TaskBatching<Task, Result> },
): WorkerPool<Task, Result> {
  const size = Math.max(1, Math.trunc(options.size));
  const maxQueue = Math.max(0, Math.trunc(options.maxQueue));
  const slots: Slot<Task, Result>[] = [];
  const queue: Job<Task, Result>[] = [];
  let closed = false;
  let nextId = 1;
  /** A worker that failed to load fails every later task the same way: a missing model does not heal by retrying. */
  let startFailure: DocsChatError | null = null;

  function finish(job: Job<Task, Result>, outcome: { result: Result } | { error: unknown }): void {
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if ('error' in outcome) job.reject(outcome.error);
    else job.resolve(outcome.result);
  }

  function release(slot: Slot<Task, Result>, outcome: { result: Result } | { error: unknown }): void {
    const jobs = slot.jobs;
    if (jobs.length === 0) return;
    slot.jobs = [];
    // An idle worker must never keep a CLI process alive once its work is done.
    slot.worker.unref();
    // More than one job only ever runs when batching merged them.
    if ('error' in outcome || jobs.length === 1) {
      for (const job of jobs) finish(job, outcome);
      return;
    }
    let parts: Result[];
    try {
      parts = options.batching!.split(
        outcome.result,
        jobs.map((job) => job.task),
      );
    } catch (error) {
      for (const job of jobs) finish(job, { error });
      return;
    }
    jobs.forEach((job, index) => finish(job, { result: parts[index] as Result }));
  }

  function failAll(error: unknown): void {
    for (const job of queue.splice(0)) finish(job, { error });
    for (const slot of slots) release(slot, { error });
  }

  function startWorker(): void {
    // Referenced while it loads: it starts because a task waits, and the process must live to run it.
    const worker = new Worker(options.script, {
      workerData: options.workerData,
      ...(options.youngGenerationMb ? { resourceLimits: { maxYoungGenerationSizeMb: options.youngGenerationMb } } : {}),
    });
    const slot: Slot<Task, Result> = { worker, state: 'starting', jobs: [], jobId: 0 };
    slots.push(slot);
    worker.on('message', (message: { ready?: boolean; id?: number; result?: Result; error?: WorkerError }) => {
      if (message.ready !== undefined) {
        if (message.ready) {
          slot.state = 'ready';
          dispatch();
          if (slot.jobs.length === 0) worker.unref();
        } else {
          startFailure = toError(message.error ?? { message: `${options.label} failed to start.` });
          failAll(startFailure);
          void worker.terminate();
        }
        return;
      }
      if (message.id !== slot.jobId) return;
      release(slot, message.error ? { error: toError(message.error) } : { result: message.result as Result });
      dispatch();
    });
    worker.on('error', (error) => {
      release(slot, {
        error: new DocsChatError('embedder_unavailable', `${options.label} stopped: ${error.message}`, {
          hint: 'Try again; if it keeps happening the machine may be short of memory (see the server log).',
          retryable: true,
          cause: error,
        }),
      });
    });
    worker.on('exit', () => {
      slot.state = 'gone';
      slots.splice(slots.indexOf(slot), 1);
      release(slot, { error: new DocsChatError('embedder_unavailable', `${options.label} exited while working.`, { retryable: true }) });
      // A crashed worker is replaced by the next dispatch, unless loading itself fails.
      if (!closed && startFailure === null) dispatch();
    });
  }

  /**
   * The next task for `slot`: the oldest waiting one, with the ones behind it that fit when batching, unless
   * another worker is free or starting (at start-up the first worker up would otherwise take every waiting task).
   */
  function takeNext(slot: Slot<Task, Result>): Job<Task, Result>[] {
    const jobs = [queue.shift()!];
    const batching = options.batching;
    if (!batching) return jobs;
    const otherWorkerComing = slots.some(
      (other) => other !== slot && (other.state === 'starting' || (other.state === 'ready' && other.jobs.length === 0)),
    );
    if (otherWorkerComing) return jobs;
    let items = batching.items(jobs[0]!.task);
    while (queue.length > 0 && items + batching.items(queue[0]!.task) <= batching.maxItems) {
      const job = queue.shift()!;
      items += batching.items(job.task);
      jobs.push(job);
    }
    return jobs;
  }

  function dispatch(): void {
    if (closed || startFailure) return;
    while (queue.length > 0) {
      const slot = slots.find((candidate) => candidate.state === 'ready' && candidate.jobs.length === 0);
      if (!slot) {
        const starting = slots.filter((candidate) => candidate.state === 'starting').length;
        if (slots.length < size && starting < queue.length) startWorker();
        return;
      }
      const jobs = takeNext(slot);
      const task = jobs.length === 1 ? jobs[0]!.task : options.batching!.merge(jobs.map((job) => job.task));
      slot.jobs = jobs;
      slot.jobId = nextId++;
      slot.worker.ref();
      slot.worker.postMessage(
        { id: slot.jobId, task },
        jobs.flatMap((job) => job.transfer ?? []),
      );
    }
  }

  const runningCount = (): number => slots.filter((slot) => slot.jobs.length > 0).length;

  return {
    size,
    get pending() {
      return queue.length + slots.reduce((sum, slot) => sum + slot.jobs.length, 0);
    },
    run(task, runOptions = {}) {
      const { signal, transfer } = runOptions;
      if (closed) return Promise.reject(new DocsChatError('embedder_unavailable', `${options.label} is shut down.`));
      if (startFailure) return Promise.reject(startFailure);
      if (signal?.aborted) return Promise.reject(new DocsChatError('aborted', 'The request was cancelled.'));
      // The first `size` tasks go to workers (running, or as soon as a worker is up); beyond them `maxQueue` may wait.
      const running = runningCount();
      if (running + queue.length >= size + maxQueue) {
        return Promise.reject(serviceBusyError(options.label, queue.length));
      }
      return new Promise<Result>((resolve, reject) => {
        const job: Job<Task, Result> = { task, transfer, resolve, reject, signal, onAbort: undefined };
        if (signal) {
          // A running inference cannot be interrupted (nor can a batch shed one task): an abort frees the caller and drops a waiting task.
          job.onAbort = () => {
            const waiting = queue.indexOf(job);
            if (waiting !== -1) queue.splice(waiting, 1);
            reject(new DocsChatError('aborted', 'The request was cancelled.'));
          };
          signal.addEventListener('abort', job.onAbort, { once: true });
        }
        queue.push(job);
        dispatch();
      });
    },
    async close() {
      closed = true;
      failAll(new DocsChatError('embedder_unavailable', `${options.label} is shut down.`));
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}
