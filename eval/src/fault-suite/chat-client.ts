/**
 * A reader's side of `POST /chat` that can be watched while the answer
 * streams (wait for the first token, then leave), built on the protocol's own
 * parser. `postChat` of the server's test support reads whole answers; this
 * one is for the checks that act mid-stream.
 */
import { createChatStreamParser, type ChatStreamEvent, type MetaEvent } from '@docs-chat/core/protocol';

export interface LiveChat {
  status: number;
  contentType: string;
  events: ChatStreamEvent[];
  /** The JSON body when the answer is not a stream (errors). */
  json: unknown;
  /** Resolves when the stream is over (ended, failed or left). */
  finished: Promise<void>;
  /** Resolves once an event matching `predicate` arrived; rejects after `timeoutMs` or when the stream ended without one. */
  waitFor(predicate: (event: ChatStreamEvent) => boolean, timeoutMs?: number): Promise<ChatStreamEvent>;
  /** The reader closes the tab. */
  leave(): void;
  meta(): MetaEvent | undefined;
  text(): string;
  last(): ChatStreamEvent | undefined;
}

export async function openChat(url: string, body: unknown, headers: Record<string, string> = {}): Promise<LiveChat> {
  const controller = new AbortController();
  const response = await fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: controller.signal,
  });
  const events: ChatStreamEvent[] = [];
  const waiters = new Set<() => void>();
  let over = false;
  const notify = (): void => {
    for (const waiter of waiters) waiter();
  };
  const contentType = response.headers.get('content-type') ?? '';
  let json: unknown = null;
  let finished: Promise<void>;
  if (contentType.startsWith('text/event-stream') && response.body) {
    const parser = createChatStreamParser((event) => {
      events.push(event);
      notify();
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    finished = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.push(decoder.decode(value, { stream: true }));
        }
        parser.end();
      } catch {
        // Left by the reader, or cut: the events so far are what the reader saw.
      } finally {
        over = true;
        notify();
      }
    })();
  } else {
    const raw = await response.text();
    try {
      json = raw.length > 0 ? JSON.parse(raw) : null;
    } catch {
      json = raw;
    }
    over = true;
    finished = Promise.resolve();
  }
  return {
    status: response.status,
    contentType,
    events,
    json,
    finished,
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = events.find(predicate);
          if (found) {
            done();
            resolve(found);
          } else if (over) {
            done();
            reject(new Error(`the stream ended without the awaited event (events: ${events.map((event) => event.type).join(',')})`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no awaited event within ${timeoutMs} ms (events: ${events.map((event) => event.type).join(',')})`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    leave: () => controller.abort(),
    meta: () => events.find((event): event is MetaEvent => event.type === 'meta'),
    text: () => events.map((event) => (event.type === 'token' ? event.content : '')).join(''),
    last: () => events.at(-1),
  };
}

/** A whole answer, read to its end. */
export async function askToEnd(url: string, body: unknown, headers: Record<string, string> = {}): Promise<LiveChat> {
  const chat = await openChat(url, body, headers);
  await chat.finished;
  return chat;
}
