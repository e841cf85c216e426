import { SaveBatcher } from './save-batcher.js';

/** A write the test finishes by hand, to hold a batch "on the wire". */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('final saves written together (group commit)', () => {
  it('writes a lone save at once, without waiting for company', async () => {
    const writes: string[][] = [];
    // A linger far longer than the test's timeout: only a save that does not wait can pass.
    const batcher = new SaveBatcher<string>({ write: async (batch) => void writes.push([...batch]), lingerMs: 60_000, maxBatch: 10 });
    const started = performance.now();
    await batcher.save('a');
    expect(writes).toEqual([['a']]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('writes the saves of one turn of the event loop as one batch', async () => {
    const writes: string[][] = [];
    const batcher = new SaveBatcher<string>({ write: async (batch) => void writes.push([...batch]), lingerMs: 60_000, maxBatch: 10 });
    await Promise.all([batcher.save('a'), batcher.save('b'), batcher.save('c')]);
    expect(writes).toEqual([['a', 'b', 'c']]);
  });

  it('holds a save back while saves come close together, so the ones that follow join it', async () => {
    const writes: string[][] = [];
    let clock = 0;
    const batcher = new SaveBatcher<string>({
      write: async (batch) => void writes.push([...batch]),
      lingerMs: 80,
      maxBatch: 10,
      now: () => clock,
    });
    await batcher.save('first');
    // 10 ms after the last one: the server is busy, so this one waits for company...
    clock = 10;
    const second = batcher.save('second');
    await sleep(5);
    clock = 15;
    const third = batcher.save('third');
    await nextTurn();
    expect(writes).toEqual([['first']]);
    // ...and goes with the third one once the linger is over.
    await Promise.all([second, third]);
    expect(writes).toEqual([['first'], ['second', 'third']]);
    // Long after: quiet again, written at once.
    clock = 10_000;
    await batcher.save('later');
    expect(writes.at(-1)).toEqual(['later']);
  });

  it('sends the saves that arrive while a batch is being written right after it, together', async () => {
    const writes: string[][] = [];
    const held = deferred();
    const batcher = new SaveBatcher<string>({
      write: async (batch) => {
        writes.push([...batch]);
        if (writes.length === 1) await held.promise;
      },
      lingerMs: 60_000,
      maxBatch: 10,
    });
    const first = batcher.save('a');
    await nextTurn();
    const behind = [batcher.save('b'), batcher.save('c')];
    await nextTurn();
    expect(writes).toEqual([['a']]);
    held.resolve();
    await Promise.all([first, ...behind]);
    expect(writes).toEqual([['a'], ['b', 'c']]);
  });

  it('fails every save of a batch whose write fails, and writes the next batch as usual', async () => {
    let fail = true;
    let clock = 0;
    const writes: string[][] = [];
    const batcher = new SaveBatcher<string>({
      write: async (batch) => {
        writes.push([...batch]);
        if (fail) throw new Error('database away');
      },
      lingerMs: 60_000,
      maxBatch: 10,
      now: () => clock,
    });
    const results = await Promise.allSettled([batcher.save('a'), batcher.save('b')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('database away'));
    fail = false;
    clock = 120_000;
    await expect(batcher.save('c')).resolves.toBeUndefined();
    expect(writes).toEqual([['a', 'b'], ['c']]);
  });

  it('turns a write that throws before it starts into failed saves, not an exception in the caller', async () => {
    const batcher = new SaveBatcher<string>({
      write: () => {
        throw new Error('closed');
      },
      lingerMs: 60_000,
      maxBatch: 10,
    });
    await expect(batcher.save('a')).rejects.toThrow('closed');
  });

  it('never puts more than maxBatch saves in one write', async () => {
    const writes: string[][] = [];
    const batcher = new SaveBatcher<string>({ write: async (batch) => void writes.push([...batch]), lingerMs: 60_000, maxBatch: 2 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((item) => batcher.save(item)));
    expect(writes).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('flush writes the saves still waiting for company at once (a server stopping)', async () => {
    const writes: string[][] = [];
    let clock = 0;
    const batcher = new SaveBatcher<string>({
      write: async (batch) => void writes.push([...batch]),
      lingerMs: 60_000,
      maxBatch: 10,
      now: () => clock,
    });
    await batcher.save('a');
    clock = 1;
    const waiting = batcher.save('b');
    await nextTurn();
    expect(writes).toEqual([['a']]);
    await batcher.flush();
    await waiting;
    expect(writes).toEqual([['a'], ['b']]);
  });
});
