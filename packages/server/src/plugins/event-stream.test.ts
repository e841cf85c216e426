import type { ChatStreamEvent } from '@docs-chat/core/protocol';
import { createEventStreamWriter } from './event-stream.js';

// Under ESM, Jest hands its API to the module on import.meta rather than as a global.
const jestApi = (import.meta as ImportMeta & { jest: typeof jest }).jest;

/** Events handed to the writer on a schedule: a number is a pause in ms before the next event. */
async function* scripted(steps: (ChatStreamEvent | number)[]): AsyncGenerator<ChatStreamEvent> {
  for (const step of steps) {
    if (typeof step === 'number') await new Promise((resolve) => setTimeout(resolve, step));
    else yield step;
  }
}

/**
 * Runs the writer over the events and returns each write that reached the body, in order. The clock is
 * simulated (timers, immediates and `performance.now`), so a busy machine cannot merge or split writes;
 * promise jobs and stream ticks stay real.
 */
async function writesOf(steps: (ChatStreamEvent | number)[], coalesceMs: number): Promise<string[]> {
  jestApi.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
  try {
    const writer = createEventStreamWriter(60_000, () => undefined, coalesceMs);
    const writes: string[] = [];
    writer.body.on('data', (chunk: Buffer) => writes.push(chunk.toString()));
    let ended = false;
    writer.body.on('end', () => (ended = true));
    const pumped = writer.pump(scripted(steps));
    // One simulated millisecond at a time, so immediates run before later timers as they would in real time.
    for (let elapsed = 0; !ended && elapsed < 5_000; elapsed += 1) await jestApi.advanceTimersByTimeAsync(1);
    await pumped;
    expect(ended).toBe(true);
    return writes;
  } finally {
    jestApi.useRealTimers();
  }
}

const token = (content: string): ChatStreamEvent => ({ type: 'token', content });
const meta: ChatStreamEvent = { type: 'meta', conversation_id: 'c', message_id: 'm', mode: 'general', persisted: true };

describe('the event stream writer', () => {
  it('sends the opening events and the first token without waiting, then groups the tokens that follow quickly', async () => {
    const writes = await writesOf([meta, 5, token('one '), 5, token('two '), token('three '), 1, token('four')], 200);
    expect(writes[0]).toContain('"type":"meta"');
    expect(writes[1]).toContain('"content":"one "');
    expect(writes[1]).not.toContain('two');
    // The rest arrived within the window and the stream ended: one write, in order.
    expect(writes.slice(2).join('')).toMatch(/two .*three .*four/s);
    expect(writes).toHaveLength(3);
  });

  it('keeps every token, in order, as its own event whatever the grouping', async () => {
    const words = Array.from({ length: 30 }, (_, index) => `w${index} `);
    const writes = await writesOf(
      words.flatMap((word, index) => (index % 5 === 0 ? [2, token(word)] : [token(word)])),
      10,
    );
    const contents = [...writes.join('').matchAll(/"content":"([^"]*)"/g)].map((match) => match[1]);
    expect(contents).toEqual(words);
  });

  it('writes tokens far apart as they come, without holding them back', async () => {
    const writes = await writesOf([token('a'), 40, token('b'), 40, token('c')], 10);
    expect(writes).toHaveLength(3);
  });
});

describe('the end of an event stream on the wire', () => {
  /**
   * Serves one event stream over real HTTP and records every write the server's socket makes from the last
   * event on: `_writev` gets each batch of chunks the socket sends at once, `_write` a single chunk.
   */
  async function socketWritesAtTheEnd(corked: boolean): Promise<string[]> {
    const { createServer } = await import('node:http');
    const writes: string[] = [];
    const server = createServer((_request, response) => {
      const socket = response.socket as import('node:net').Socket & {
        _write: (chunk: Buffer, encoding: string, done: () => void) => void;
        _writev: (chunks: { chunk: Buffer | string }[], done: () => void) => void;
      };
      const write = socket._write.bind(socket);
      const writev = socket._writev.bind(socket);
      socket._write = (chunk, encoding, done) => {
        writes.push(String(chunk));
        write(chunk, encoding, done);
      };
      socket._writev = (chunks, done) => {
        writes.push(chunks.map(({ chunk }) => String(chunk)).join(''));
        writev(chunks, done);
      };
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const writer = createEventStreamWriter(60_000, () => undefined, 0, corked ? response : undefined);
      writer.body.pipe(response);
      void writer.pump(scripted([meta, 5, token('last words'), 5, { type: 'done', sources: [], finish_reason: 'stop', usage: null }]));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as import('node:net').AddressInfo;
      const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      expect(body).toContain('"type":"done"');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    return writes.slice(writes.findIndex((write) => write.includes('"type":"done"')));
  }

  it('sends the last event and the end of the chunked body in one write', async () => {
    const writes = await socketWritesAtTheEnd(true);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/"type":"done"[\s\S]*\r\n0\r\n\r\n$/);
  });

  it('would send them apart without the response to hold them (what the first test guards against)', async () => {
    const writes = await socketWritesAtTheEnd(false);
    expect(writes).toEqual([expect.stringContaining('"type":"done"'), '0\r\n\r\n']);
  });
});
