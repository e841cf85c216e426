import { DocsChatError } from '../errors.js';
import { createRequestBatcher } from './request-batcher.js';

/** A runner whose batches finish when the test says, recording what each batch held. */
function heldRunner() {
  const batches: string[][] = [];
  const finishers: Array<(fail?: Error) => void> = [];
  const runBatch = (items: string[]): Promise<string[]> =>
    new Promise((resolve, reject) => {
      batches.push(items);
      finishers.push((fail) => (fail ? reject(fail) : resolve(items.map((item) => item.toUpperCase()))));
    });
  /** Finishes the oldest unfinished batch and lets the batcher react. */
  const finishNext = async (fail?: Error): Promise<void> => {
    finishers.shift()!(fail);
    await new Promise((settle) => setImmediate(settle));
  };
  return { batches, runBatch, finishNext };
}

const settled = () => new Promise((settle) => setImmediate(settle));

describe('request batcher', () => {
  it('sends a lone request at once, and merges the requests that arrive while the worker is busy', async () => {
    const runner = heldRunner();
    const batcher = createRequestBatcher({ runBatch: runner.runBatch, maxBatchItems: 8, concurrency: 1, maxWaiting: 64, label: 'Test' });
    const first = batcher.submit(['a']);
    expect(runner.batches).toEqual([['a']]);
    const later = [batcher.submit(['b']), batcher.submit(['c', 'd']), batcher.submit(['e'])];
    expect(batcher.waiting).toBe(3);
    await runner.finishNext();
    expect(await first).toEqual(['A']);
    expect(runner.batches[1]).toEqual(['b', 'c', 'd', 'e']);
    await runner.finishNext();
    expect(await Promise.all(later)).toEqual([['B'], ['C', 'D'], ['E']]);
  });

  it('keeps a batch within maxBatchItems without splitting a request, and a larger request goes alone', async () => {
    const runner = heldRunner();
    const batcher = createRequestBatcher({ runBatch: runner.runBatch, maxBatchItems: 3, concurrency: 1, maxWaiting: 64, label: 'Test' });
    const all = [
      batcher.submit(['first']),
      batcher.submit(['a', 'b']),
      batcher.submit(['c', 'd']),
      batcher.submit(['e', 'f', 'g', 'h']),
      batcher.submit(['i']),
    ];
    for (let batch = 0; batch < 5 && runner.batches.length > batch; batch += 1) await runner.finishNext();
    await Promise.all(all);
    expect(runner.batches).toEqual([['first'], ['a', 'b'], ['c', 'd'], ['e', 'f', 'g', 'h'], ['i']]);
  });

  it('runs as many batches at once as there are workers', async () => {
    const runner = heldRunner();
    const batcher = createRequestBatcher({ runBatch: runner.runBatch, maxBatchItems: 8, concurrency: 2, maxWaiting: 64, label: 'Test' });
    void batcher.submit(['a']);
    void batcher.submit(['b']);
    void batcher.submit(['c']);
    expect(runner.batches).toEqual([['a'], ['b']]);
    expect(batcher.waiting).toBe(1);
  });

  it('refuses with a retryable service_busy once maxWaiting requests wait', async () => {
    const runner = heldRunner();
    const batcher = createRequestBatcher({
      runBatch: runner.runBatch,
      maxBatchItems: 8,
      concurrency: 1,
      maxWaiting: 2,
      label: 'The test encoder',
    });
    void batcher.submit(['running']);
    void batcher.submit(['waits 1']);
    void batcher.submit(['waits 2']);
    const refused = await batcher.submit(['one too many']).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DocsChatError);
    expect(refused).toMatchObject({ code: 'service_busy', retryable: true });
    expect((refused as Error).message).toMatch(/The test encoder is busy: 2 requests/);
  });

  it('with no waiting room, still runs a request that finds a worker idle and refuses the next', async () => {
    const runner = heldRunner();
    const batcher = createRequestBatcher({ runBatch: runner.runBatch, maxBatchItems: 8, concurrency: 1, maxWaiting: 0, label: 'Test' });
    const accepted = batcher.submit(['first']);
    await expect(batcher.submit(['second'])).rejects.toMatchObject({ code: 'service_busy' });
    await runner.finishNext();
    expect(await accepted).toEqual(['FIRST']);
    const afterwards = batcher.submit(['third']);
    await runner.finishNext();
    expect(await afterwards).toEqual(['THIRD']);
  });

  it('drops a waiting request whose caller gave up, and frees a caller whose batch is running', async () => {
    const runner = heldRunner();
    const batcher = createRequestBatcher({ runBatch: runner.runBatch, maxBatchItems: 8, concurrency: 1, maxWaiting: 64, label: 'Test' });
    const runningCaller = new AbortController();
    const running = batcher.submit(['running'], runningCaller.signal).catch((error: unknown) => error);
    const waitingCaller = new AbortController();
    const dropped = batcher.submit(['dropped'], waitingCaller.signal).catch((error: unknown) => error);
    const kept = batcher.submit(['kept']);
    waitingCaller.abort();
    runningCaller.abort();
    expect(await dropped).toMatchObject({ code: 'aborted' });
    expect(await running).toMatchObject({ code: 'aborted' });
    await runner.finishNext();
    expect(runner.batches[1]).toEqual(['kept']);
    await runner.finishNext();
    expect(await kept).toEqual(['KEPT']);
  });

  it('fails every request of a failed batch, and only those', async () => {
    const runner = heldRunner();
    const batcher = createRequestBatcher({ runBatch: runner.runBatch, maxBatchItems: 2, concurrency: 1, maxWaiting: 64, label: 'Test' });
    const first = batcher.submit(['first']);
    const merged = [batcher.submit(['a']), batcher.submit(['b'])].map((request) => request.catch((error: unknown) => error));
    const afterwards = batcher.submit(['c']);
    await runner.finishNext();
    await runner.finishNext(new Error('the worker crashed'));
    await settled();
    expect(await first).toEqual(['FIRST']);
    expect((await Promise.all(merged)).map((error) => (error as Error).message)).toEqual(['the worker crashed', 'the worker crashed']);
    await runner.finishNext();
    expect(await afterwards).toEqual(['C']);
  });

  it('rejects the waiting requests when it is shut down', async () => {
    const runner = heldRunner();
    const batcher = createRequestBatcher({ runBatch: runner.runBatch, maxBatchItems: 8, concurrency: 1, maxWaiting: 64, label: 'Test' });
    void batcher.submit(['running']);
    const waiting = batcher.submit(['waiting']).catch((error: unknown) => error);
    batcher.rejectWaiting(new DocsChatError('embedder_unavailable', 'The test encoder is shut down.'));
    expect(await waiting).toMatchObject({ code: 'embedder_unavailable' });
    expect(batcher.waiting).toBe(0);
  });
});
