import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChatStreamEvent } from '@docs-chat/protocol';
import { ChatClientError } from './chat-errors.js';
import { streamChat } from './stream-client.js';
import { readFixture, startChatTestServer, type ChatTestServer } from '../test-doubles/chat-server.js';

let server: ChatTestServer;
beforeAll(async () => {
  server = await startChatTestServer();
});
afterAll(async () => {
  await server.close();
});

async function collect(request = { message: 'How do I re-run the ingest?', mode: 'general' as const }, signal?: AbortSignal) {
  const events: ChatStreamEvent[] = [];
  const outcome = await streamChat({
    serverUrl: server.url,
    request,
    onEvent: (event) => events.push(event),
    ...(signal ? { signal } : {}),
  });
  return { events, outcome };
}

function answerText(events: ChatStreamEvent[]): string {
  return events.map((event) => (event.type === 'token' ? event.content : '')).join('');
}

describe('streamChat', () => {
  it('posts the question as JSON and delivers meta, sources, tokens and done in order', async () => {
    server.answerChatWith({ body: readFixture('general-answer.sse') });
    const { events, outcome } = await collect();
    expect(outcome).toBe('done');
    expect(events.map((event) => event.type)).toEqual(['meta', 'sources', 'token', 'token', 'token', 'done']);
    expect(answerText(events)).toContain('only changed files are re-embedded [1].');
    expect(server.requests.at(-1)?.body).toEqual({ message: 'How do I re-run the ingest?', mode: 'general' });
  });

  it.each([
    ['one byte at a time', Array.from({ length: 4000 }, () => 1)],
    ['pieces that split the JSON and the blank line', [7, 13, 1, 2, 50, 3, 1, 1, 200, 9]],
    ['pieces of 17 bytes', Array.from({ length: 200 }, () => 17)],
  ])('reassembles frames sent in %s', async (_name, chunkSizes) => {
    const body = readFixture('general-answer.sse');
    server.answerChatWith({ body: readFixture('general-answer.sse') });
    const whole = await collect();
    server.answerChatWith({ body, chunkSizes, pauseMs: 0 });
    const split = await collect();
    expect(split.events).toEqual(whole.events);
  });

  it('keeps multi-byte characters intact when a chunk boundary cuts through them', async () => {
    const body = readFixture('multibyte-tokens.sse');
    const sizes = Array.from({ length: Buffer.byteLength(body) }, () => 1);
    server.answerChatWith({ body, chunkSizes: sizes });
    const { events } = await collect();
    expect(answerText(events)).toBe('Grüße 👋 日本語のドキュメント');
  });

  it('ignores heartbeat comments while the model is slow', async () => {
    server.answerChatWith({ body: readFixture('heartbeats.sse'), chunkSizes: [8, 8, 8], pauseMs: 20 });
    const { events, outcome } = await collect();
    expect(outcome).toBe('done');
    expect(answerText(events)).toBe('Slow but steady.');
  });

  it('accepts CRLF line endings', async () => {
    server.answerChatWith({ body: readFixture('crlf-line-endings.sse') });
    const { events, outcome } = await collect();
    expect(outcome).toBe('done');
    expect(answerText(events)).toBe('Windows line endings work.');
  });

  // TCP may merge small writes, so this test hands the reader one byte per chunk
  // deterministically through a Response built on a ReadableStream.
  it.each(['general-answer.sse', 'crlf-line-endings.sse', 'multibyte-tokens.sse', 'heartbeats.sse'])(
    'parses %s identically when every byte arrives as its own chunk',
    async (fixture) => {
      const bytes = new TextEncoder().encode(readFixture(fixture));
      const byteByByte: typeof fetch = async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
              controller.close();
            },
          }),
          { headers: { 'content-type': 'text/event-stream' } },
        );
      const wholeFrames: typeof fetch = async () =>
        new Response(readFixture(fixture), { headers: { 'content-type': 'text/event-stream' } });
      const run = async (fetchImpl: typeof fetch) => {
        const events: ChatStreamEvent[] = [];
        await streamChat({
          serverUrl: 'http://docs-chat.invalid',
          request: { message: 'q', mode: 'general' },
          onEvent: (event) => events.push(event),
          fetch: fetchImpl,
        });
        return events;
      };
      const split = await run(byteByByte);
      expect(split.length).toBeGreaterThan(2);
      expect(split).toEqual(await run(wholeFrames));
    },
  );

  it('passes an error event on and then rejects with a busy error the reader can retry', async () => {
    server.answerChatWith({ body: readFixture('error-busy.sse') });
    const events: ChatStreamEvent[] = [];
    const failure = streamChat({
      serverUrl: server.url,
      request: { message: 'q', mode: 'general' },
      onEvent: (event) => events.push(event),
    });
    await expect(failure).rejects.toMatchObject({ kind: 'busy', retryable: true, code: 'busy' });
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'busy' });
    expect(answerText(events)).toBe('Partial ans');
  });

  it('rejects when the stream ends before the done event', async () => {
    server.answerChatWith({ body: readFixture('cut-stream.sse') });
    await expect(collect()).rejects.toMatchObject({ kind: 'network', retryable: true });
  });

  it('rejects a malformed event as a protocol error instead of showing garbage', async () => {
    server.answerChatWith({ body: readFixture('malformed-event.sse') });
    await expect(collect()).rejects.toMatchObject({ kind: 'protocol' });
  });

  it.each([
    ['an event whose field has the wrong type', 'wrong-field-type.sse'],
    ['an event of a type this version does not define', 'unknown-event-type.sse'],
    // Its message even reads like a protocol failure: the class decides, not the text.
    ['an error event with a code the server never sends', 'unknown-error-code.sse'],
  ])('rejects %s as a malformed stream, after the events before it', async (_name, fixture) => {
    server.answerChatWith({ body: readFixture(fixture) });
    const events: ChatStreamEvent[] = [];
    const failure = streamChat({
      serverUrl: server.url,
      request: { message: 'q', mode: 'general' },
      onEvent: (event) => events.push(event),
    });
    await expect(failure).rejects.toMatchObject({ kind: 'protocol', message: 'The server sent a malformed answer stream.' });
    expect(events.map((event) => event.type)).toEqual(['meta', 'token']);
  });

  it('skips an event it cannot read when the server speaks a later minor version', async () => {
    server.answerChatWith({ body: readFixture('unknown-event-type.sse'), headers: { 'x-docs-chat-protocol': '2.9' } });
    const { events, outcome } = await collect();
    expect(outcome).toBe('done');
    expect(events.map((event) => event.type)).toEqual(['meta', 'token', 'done']);
  });

  it('maps HTTP 429 to a rate-limited error carrying retry-after', async () => {
    server.answerChatWith({
      status: 429,
      headers: { 'retry-after': '12' },
      json: { error: { code: 'rate_limited', message: 'Too many requests; please wait a moment before asking again.' }, request_id: 'r1' },
    });
    const failure = collect();
    await expect(failure).rejects.toBeInstanceOf(ChatClientError);
    await expect(failure).rejects.toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 12, status: 429, code: 'rate_limited' });
  });

  it('maps HTTP 400 to a non-retryable error that keeps the server explanation', async () => {
    server.answerChatWith({
      status: 400,
      json: { error: { code: 'invalid_request', message: 'The request is not valid.', details: ['"message" must not be empty.'] } },
    });
    await expect(collect()).rejects.toMatchObject({
      kind: 'invalid_request',
      retryable: false,
      message: 'The request is not valid. "message" must not be empty.',
    });
  });

  it('keeps the message but no code when an error body carries a code this version does not know', async () => {
    server.answerChatWith({ status: 503, json: { error: { code: 'overloaded', message: 'Try again in a minute.' }, request_id: 'r2' } });
    await expect(collect()).rejects.toMatchObject({ kind: 'busy', code: null, message: 'Try again in a minute.' });
  });

  it('maps HTTP 503 to a busy error', async () => {
    server.answerChatWith({ status: 503, json: { error: { code: 'shutting_down', message: 'The server is restarting.' } } });
    await expect(collect()).rejects.toMatchObject({ kind: 'busy', retryable: true });
  });

  it('reports a server that cannot be reached as a network error', async () => {
    const closed = await startChatTestServer();
    const url = closed.url;
    await closed.close();
    await expect(
      streamChat({ serverUrl: url, request: { message: 'q', mode: 'general' }, onEvent: () => undefined }),
    ).rejects.toMatchObject({ kind: 'network', retryable: true });
  });

  it('refuses a server that speaks a major protocol version it cannot read', async () => {
    server.answerChatWith({ body: readFixture('general-answer.sse'), headers: { 'x-docs-chat-protocol': '3.0' } });
    await expect(collect()).rejects.toMatchObject({ kind: 'protocol', retryable: false });
  });

  it('reads a 1.0 server, whose sources carry headingPath, as it reads a 2.0 one', async () => {
    server.answerChatWith({ body: readFixture('general-answer.sse') });
    const current = await collect();
    server.answerChatWith({ body: readFixture('general-answer-protocol-1.0.sse'), headers: { 'x-docs-chat-protocol': '1.0' } });
    const legacy = await collect();
    expect(legacy.outcome).toBe('done');
    expect(legacy.events).toEqual(current.events);
    expect(legacy.events[1]).toMatchObject({
      type: 'sources',
      sources: [{ heading_path: ['Ingest', 'Re-running the ingest'] }, { heading_path: [] }],
    });
  });

  it('stops reading and closes the connection when aborted mid-stream', async () => {
    server.answerChatWith({ body: readFixture('held-open.sse'), holdOpen: true });
    const controller = new AbortController();
    const disconnected = server.nextDisconnect();
    const events: ChatStreamEvent[] = [];
    const outcome = streamChat({
      serverUrl: server.url,
      request: { message: 'q', mode: 'general' },
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'token' && event.content === 'ing…') controller.abort();
      },
    });
    await expect(outcome).resolves.toBe('aborted');
    await disconnected;
    expect(answerText(events)).toBe('Streaming…');
  });

  it('resolves as aborted when the signal fires before the response arrives', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(collect(undefined, controller.signal)).resolves.toMatchObject({ outcome: 'aborted', events: [] });
  });
});
