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
