import { createWorkerPool, type WorkerPool } from './worker-pool.js';

interface Task {
  value: number;
  delayMs?: number;
  fail?: boolean;
}

const script = new URL('./__fixtures__/slow-echo-worker.mjs', import.meta.url);

describe('worker pool', () => {
  let pool: WorkerPool<Task, { value: number }>;
  afterEach(async () => {
    await pool?.close();
  });

  it('runs tasks on worker threads and returns their results in the order asked', async () => {
    pool = createWorkerPool<Task, { value: number }>({ script, size: 2, maxQueue: 10, label: 'The test pool' });
    const results = await Promise.all([1, 2, 3, 4].map((value) => pool.run({ value, delayMs: 5 })));
    expect(results.map((result) => result.value)).toEqual([1, 2, 3, 4]);
  });

  it('answers service_busy, marked retryable, once the queue is full instead of letting it grow', async () => {
    pool = createWorkerPool<Task, { value: number }>({ script, size: 1, maxQueue: 2, label: 'The test pool' });
    // The worker is still starting, so all three wait (one will run first): the fourth finds the queue full, at once.
    const accepted = [1, 2, 3].map((value) => pool.run({ value, delayMs: 100 }));
    const refused = await pool.run({ value: 4 }).then(
      () => null,
      (error: unknown) => error as { code: string; retryable: boolean; retryAfterMs: number },
    );
    expect(refused).toMatchObject({
      code: 'service_busy',
      retryable: true,
      message: 'The test pool is busy: 3 tasks are already waiting.',
    });
    expect(refused?.retryAfterMs).toBeGreaterThan(0);
    expect((await Promise.all(accepted)).map((result) => result.value)).toEqual([1, 2, 3]);
  });

  it('passes a task failure to its caller and keeps serving the next tasks', async () => {
    pool = createWorkerPool<Task, { value: number }>({ script, size: 1, maxQueue: 4, label: 'The test pool' });
    await expect(pool.run({ value: 1, fail: true })).rejects.toMatchObject({ message: 'task 1 failed' });
    await expect(pool.run({ value: 2 })).resolves.toEqual({ value: 2, threadId: null });
  });

  it('fails every task with the worker start-up error, whose code and hint say what to do', async () => {
    pool = createWorkerPool<Task, { value: number }>({
      script,
      workerData: { failToLoad: true },
      size: 2,
      maxQueue: 4,
      label: 'The test pool',
    });
    await expect(pool.run({ value: 1 })).rejects.toMatchObject({ code: 'embedder_model_invalid', hint: 'Reinstall it.' });
    await expect(pool.run({ value: 2 })).rejects.toMatchObject({ code: 'embedder_model_invalid' });
  });

  it('frees a caller whose signal aborts while its task waits', async () => {
    pool = createWorkerPool<Task, { value: number }>({ script, size: 1, maxQueue: 4, label: 'The test pool' });
    const running = pool.run({ value: 1, delayMs: 100 });
    const controller = new AbortController();
    const waiting = pool.run({ value: 2 }, { signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'aborted' });
    await expect(running).resolves.toMatchObject({ value: 1 });
  });
});

interface BatchTask {
  values: string[];
  delayMs?: number;
  fail?: boolean;
}

interface BatchResult {
  values: string[];
  /** Every value the worker ran in the same task. */
  batch: string[];
}

/** Each task's own values, and the whole batch the worker ran. */
function splitBatch(result: BatchResult, tasks: BatchTask[]): BatchResult[] {
  let offset = 0;
  return tasks.map((task) => {
    const values = result.values.slice(offset, offset + task.values.length);
    offset += task.values.length;
    return { values, batch: result.batch };
  });
}

/** A batching pool whose workers have not started: they start on the first task. */
function coldBatchingPool(
  size: number,
  maxItems: number,
  maxQueue = 64,
  split: (result: BatchResult, tasks: BatchTask[]) => BatchResult[] = splitBatch,
): WorkerPool<BatchTask, BatchResult> {
  return createWorkerPool<BatchTask, BatchResult>({
    script,
    size,
    maxQueue,
    label: 'The test pool',
    batching: {
      maxItems,
      items: (task) => task.values.length,
      merge: (tasks) => ({
        values: tasks.flatMap((task) => task.values),
        delayMs: Math.max(...tasks.map((task) => task.delayMs ?? 0)),
        fail: tasks.some((task) => task.fail),
      }),
      split,
    },
  });
}

/** A batching pool whose workers are up and idle. */
async function batchingPool(size: number, maxItems: number, maxQueue = 64): Promise<WorkerPool<BatchTask, BatchResult>> {
  const pool = coldBatchingPool(size, maxItems, maxQueue);
  await Promise.all(Array.from({ length: size }, (_, index) => pool.run({ values: [`warm ${index}`], delayMs: 50 })));
  return pool;
}

describe('worker pool with batching', () => {
  let pool: WorkerPool<BatchTask, BatchResult>;
  afterEach(async () => {
    await pool?.close();
  });

  it('sends a lone task at once, and merges the tasks that arrive while the worker is busy', async () => {
    pool = await batchingPool(1, 8);
    const first = pool.run({ values: ['a'], delayMs: 100 });
    const later = [pool.run({ values: ['b'] }), pool.run({ values: ['c', 'd'] }), pool.run({ values: ['e'] })];
    expect(await first).toEqual({ values: ['a'], batch: ['a'] });
    expect(await Promise.all(later)).toEqual([
      { values: ['b'], batch: ['b', 'c', 'd', 'e'] },
      { values: ['c', 'd'], batch: ['b', 'c', 'd', 'e'] },
      { values: ['e'], batch: ['b', 'c', 'd', 'e'] },
    ]);
  });

  it('keeps a batch within maxItems without splitting a task, and a larger task runs alone', async () => {
    pool = await batchingPool(1, 3);
    const results = await Promise.all(
      [['first'], ['a', 'b'], ['c', 'd'], ['e', 'f', 'g', 'h'], ['i']].map((values, index) =>
        pool.run({ values, delayMs: index === 0 ? 50 : 0 }),
      ),
    );
    expect(results.map((result) => result.batch)).toEqual([['first'], ['a', 'b'], ['c', 'd'], ['e', 'f', 'g', 'h'], ['i']]);
  });

  it('gives a task to each worker that is free or starting before merging any', async () => {
    pool = await batchingPool(2, 8);
    const warm = await Promise.all(['a', 'b', 'c', 'd'].map((value, index) => pool.run({ values: [value], delayMs: index < 2 ? 100 : 0 })));
    expect(warm.map((result) => result.batch)).toEqual([['a'], ['b'], ['c', 'd'], ['c', 'd']]);
    await pool.close();
    // At start-up every task waits: the first worker up takes one (long enough for the second to start), the second the rest.
    pool = coldBatchingPool(2, 8);
    const cold = await Promise.all(['a', 'b', 'c', 'd'].map((value) => pool.run({ values: [value], delayMs: value === 'a' ? 600 : 0 })));
    expect(cold.map((result) => result.batch)).toEqual([['a'], ['b', 'c', 'd'], ['b', 'c', 'd'], ['b', 'c', 'd']]);
  });

  it('with no waiting room, still runs a task that finds a worker free and refuses the next', async () => {
    pool = await batchingPool(1, 8, 0);
    const accepted = pool.run({ values: ['first'], delayMs: 50 });
    await expect(pool.run({ values: ['second'] })).rejects.toMatchObject({
      code: 'service_busy',
      retryable: true,
      message: 'The test pool is busy: every thread is working.',
    });
    expect(await accepted).toEqual({ values: ['first'], batch: ['first'] });
    expect(await pool.run({ values: ['third'] })).toEqual({ values: ['third'], batch: ['third'] });
  });

  it('drops a waiting task whose caller gave up, and frees a caller whose task is running', async () => {
    pool = await batchingPool(1, 8);
    const runningCaller = new AbortController();
    const running = pool.run({ values: ['running'], delayMs: 100 }, { signal: runningCaller.signal }).catch((error: unknown) => error);
    const waitingCaller = new AbortController();
    const dropped = pool.run({ values: ['dropped'] }, { signal: waitingCaller.signal }).catch((error: unknown) => error);
    const kept = pool.run({ values: ['kept'] });
    waitingCaller.abort();
    runningCaller.abort();
    expect(await dropped).toMatchObject({ code: 'aborted' });
    expect(await running).toMatchObject({ code: 'aborted' });
    expect(await kept).toEqual({ values: ['kept'], batch: ['kept'] });
  });

  it('fails every task of a failed batch, and only those', async () => {
    pool = await batchingPool(1, 2);
    const first = pool.run({ values: ['first'], delayMs: 100 });
    const merged = [pool.run({ values: ['a'], fail: true }), pool.run({ values: ['b'] })].map((task) =>
      task.catch((error: unknown) => error),
    );
    const afterwards = pool.run({ values: ['c'] });
    expect(await first).toEqual({ values: ['first'], batch: ['first'] });
    expect((await Promise.all(merged)).map((error) => (error as Error).message)).toEqual(['task a,b failed', 'task a,b failed']);
    expect(await afterwards).toEqual({ values: ['c'], batch: ['c'] });
  });

  it('fails every task of a batch whose result cannot be split, and keeps serving', async () => {
    pool = coldBatchingPool(1, 8, 8, () => {
      throw new Error('the result has fewer rows than the batch');
    });
    await pool.run({ values: ['warm'] });
    const alone = pool.run({ values: ['alone'], delayMs: 100 });
    const merged = [pool.run({ values: ['a'] }), pool.run({ values: ['b'] })].map((task) => task.catch((error: unknown) => error));
    expect(await alone).toEqual({ values: ['alone'], batch: ['alone'] });
    expect((await Promise.all(merged)).map((error) => (error as Error).message)).toEqual([
      'the result has fewer rows than the batch',
      'the result has fewer rows than the batch',
    ]);
    expect(await pool.run({ values: ['after'] })).toEqual({ values: ['after'], batch: ['after'] });
  });

  it('rejects the waiting tasks when it is shut down', async () => {
    pool = await batchingPool(1, 8);
    const running = pool.run({ values: ['running'], delayMs: 100 }).catch((error: unknown) => error);
    const waiting = pool.run({ values: ['waiting'] }).catch((error: unknown) => error);
    await pool.close();
    expect(await waiting).toMatchObject({ code: 'embedder_unavailable', message: 'The test pool is shut down.' });
    expect(await running).toMatchObject({ code: 'embedder_unavailable' });
  });
});
