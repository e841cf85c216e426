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
    // One task runs, two wait: the fourth finds the queue full, at once.
    const accepted = [1, 2, 3].map((value) => pool.run({ value, delayMs: 100 }));
    const refused = await pool.run({ value: 4 }).then(
      () => null,
      (error: unknown) => error as { code: string; retryable: boolean; retryAfterMs: number },
    );
    expect(refused).toMatchObject({ code: 'service_busy', retryable: true });
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
