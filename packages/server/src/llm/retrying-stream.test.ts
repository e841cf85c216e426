/**
 * The retry wrapper on its own, with scripted providers: what the reader sees
 * when a provider misbehaves in ways the stand-ins cannot easily force.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ChatModelEvent } from './chat-model.js';
import { LlmError } from './chat-model.js';
import { drain } from './chat-model-test-support.js';
import { streamWithRetries } from './retrying-stream.js';

const policy = { attempts: 3, baseDelayMs: 5, maxServerDelayMs: 1_000 };

function options(signal = new AbortController().signal, idleTimeoutMs = 200) {
  return {
    signal,
    idleTimeoutMs,
    service: 'Scripted model',
    policy,
    toLlmError: (error: unknown) =>
      error instanceof LlmError ? error : new LlmError('llm_unavailable', String(error), { retryable: true }),
  };
}

describe('streamWithRetries', () => {
  it('does not count the time a slow reader takes between events against the model', async () => {
    async function* provider(): AsyncGenerator<ChatModelEvent> {
      yield { type: 'text', text: 'one ' };
      yield { type: 'text', text: 'two' };
      yield { type: 'finish', reason: 'stop', usage: null };
    }
    const events: ChatModelEvent[] = [];
    for await (const event of streamWithRetries(() => provider(), options(undefined, 50))) {
      events.push(event);
      await delay(120);
    }
    expect(events.map((event) => event.type)).toEqual(['text', 'text', 'finish']);
  });

  it('reports a stream that closes cleanly after some text but without a finish as cut', async () => {
    async function* provider(): AsyncGenerator<ChatModelEvent> {
      yield { type: 'text', text: 'Half an ans' };
    }
    const result = await drain(streamWithRetries(() => provider(), options()));
    expect(result.text).toBe('Half an ans');
    expect(result.error?.code).toBe('llm_stream_cut');
  });

  it('retries a stream that closes without any answer, then reports the model unavailable', async () => {
    let attempts = 0;
    // eslint-disable-next-line require-yield -- a stream that ends before its first event is the case under test
    async function* provider(): AsyncGenerator<ChatModelEvent> {
      attempts += 1;
    }
    const result = await drain(streamWithRetries(() => provider(), options()));
    expect(result.error?.code).toBe('llm_unavailable');
    expect(attempts).toBe(3);
  });

  it('passes through a finish that comes without any text', async () => {
    async function* provider(): AsyncGenerator<ChatModelEvent> {
      yield { type: 'finish', reason: 'safety', usage: null };
    }
    const result = await drain(streamWithRetries(() => provider(), options()));
    expect(result.error).toBeUndefined();
    expect(result.finish?.reason).toBe('safety');
  });

  it('fails with aborted at once when the reader had already left', async () => {
    const controller = new AbortController();
    controller.abort();
    let opened = 0;
    async function* provider(): AsyncGenerator<ChatModelEvent> {
      opened += 1;
      yield { type: 'finish', reason: 'stop', usage: null };
    }
    const result = await drain(streamWithRetries(() => provider(), options(controller.signal)));
    expect(result.error?.code).toBe('aborted');
    expect(opened).toBe(0);
  });
});
