/**
 * Requests an attacker (or a broken client) would send: every refusal keeps the
 * documented shape `{error: {code, message}, request_id}` with CORS headers, stays
 * small, and cannot hold a socket open.
 */
import { connect } from 'node:net';
import type { MetaEvent } from '@docs-chat/core/protocol';
import { answerText, createTestIndex, postChat, startTestServer, type TestIndex, type TestServer } from './testing/test-server.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;
const ORIGIN = 'https://docs.example.com';

let index: TestIndex;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex();
  server = await startTestServer({
    index,
    env: {
      CORS_ORIGINS: ORIGIN,
      RATE_LIMIT_MAX: '1000',
      FEEDBACK_RATE_LIMIT_MAX: '3',
      CONVERSATION_RATE_LIMIT_MAX: '3',
      REQUEST_TIMEOUT_MS: '400',
      HEADERS_TIMEOUT_MS: '300',
    },
  });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await index?.remove();
});

interface ErrorBody {
  error: { code: string; message: string; details?: string[] };
  request_id: string;
}

async function expectDocumentedError(response: Response, status: number, code: string): Promise<ErrorBody> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as ErrorBody;
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(10);
  expect(body.request_id).toBe(response.headers.get('x-request-id'));
  expect(body.request_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  return body;
}

/** Sends raw bytes and resolves with everything the server wrote before it closed the socket. */
function rawExchange(port: number, chunks: string[], gapMs = 0, giveUpMs = 5000): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the socket open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (text += data));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    const writeChunks = async (): Promise<void> => {
      for (const chunk of chunks) {
        socket.write(chunk);
        if (gapMs > 0) await new Promise((wait) => setTimeout(wait, gapMs));
      }
    };
    socket.on('connect', () => {
      writeChunks().catch(reject);
    });
  });
}

describe('framework errors', () => {
  it('answers a conversation id longer than 100 characters with 414 in the documented shape, without echoing the URL', async () => {
    const id = 'a'.repeat(150);
    const response = await fetch(`${server.url}/conversations/${id}`, { headers: { origin: ORIGIN } });
    const body = await expectDocumentedError(response, 414, 'uri_too_long');
    expect(JSON.stringify(body)).not.toContain(id);
  });

  it('answers an undecodable URL with 400 in the documented shape', async () => {
    const response = await fetch(`${server.url}/conversations/%E0%A4%A`, { headers: { origin: ORIGIN } });
    await expectDocumentedError(response, 400, 'malformed_request');
  });

  it('answers an unknown route with 404 and the CORS headers', async () => {
    const response = await fetch(`${server.url}/wp-login.php`, { headers: { origin: ORIGIN } });
    await expectDocumentedError(response, 404, 'route_not_found');
  });

  it('answers a plain-text body with 415 as the docs say', async () => {
    const response = await fetch(`${server.url}/chat`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'text/plain' },
      body: 'message=hi',
    });
    const body = await expectDocumentedError(response, 415, 'unsupported_media_type');
    expect(body.error.message).toMatch(/application\/json/);
  });
});

describe('a body over BODY_LIMIT_BYTES', () => {
  /**
   * Uploads a 600 KB body in pieces, the way a slow link delivers it, and records how the exchange ends. Closing a
   * socket that still holds unread upload data makes the kernel answer with a reset, which can throw away the 413
   * before the client reads it: a reader then sees a network error instead of "shorten the highlighted text".
   */
  function uploadSlowly(port: number): Promise<{ text: string; socketError?: string }> {
    return new Promise((resolve) => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      const size = 600 * 1024;
      const pieces = 6;
      let text = '';
      let socketError: string | undefined;
      socket.setEncoding('utf8');
      socket.on('data', (data: string) => (text += data));
      socket.on('error', (error: NodeJS.ErrnoException) => (socketError = error.code ?? error.message));
      socket.on('close', () => resolve({ text, socketError }));
      socket.on('connect', () => {
        void (async () => {
          const piece = 'x'.repeat(size / pieces);
          socket.write(
            `POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${ORIGIN}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n${piece}`,
          );
          // Like fetch, the client goes on uploading after the answer arrives.
          for (let sent = 1; sent < pieces && socket.writable; sent += 1) {
            await new Promise((wait) => setTimeout(wait, 25));
            socket.write(piece);
          }
          await new Promise((wait) => setTimeout(wait, 100));
          socket.end();
        })();
      });
    });
  }

  it('answers 413 in the documented shape and reads the rest of the upload instead of resetting the connection', async () => {
    const { text, socketError } = await uploadSlowly(Number(new URL(server.url).port));
    expect(socketError).toBeUndefined();
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as ErrorBody;
    expect(body.error.code).toBe('payload_too_large');
    expect(body.error.message).toMatch(/BODY_LIMIT_BYTES/);
    expect(text).not.toMatch(/\r\nconnection: close\r\n/i);
  });

  it('cuts off at once a declared body too large to be worth reading', async () => {
    const port = Number(new URL(server.url).port);
    const head = `POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{"message": "`;
    const { text } = await rawExchange(port, [head]);
    expect(text).toMatch(/^HTTP\/1\.1 413/);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
  });
});

describe('validation errors', () => {
  it('list at most ten problems and a count, so 30,000 unknown keys get a small answer', async () => {
    const body: Record<string, unknown> = { message: 'hello', mode: 'general' };
    for (let key = 0; key < 30_000; key += 1) body[`k${key}`] = 1;
    const response = await fetch(`${server.url}/chat`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.clone().text();
    const parsed = await expectDocumentedError(response, 400, 'invalid_request');
    expect(text.length).toBeLessThan(4096);
    expect(parsed.error.details).toHaveLength(11);
    expect(parsed.error.details?.at(-1)).toMatch(/and 29,?99\d more problems/);
  });
});

describe('request timeouts', () => {
  it('close a socket whose body never finishes with 408 in the documented shape', async () => {
    const port = Number(new URL(server.url).port);
    const head = `POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"message": "hel`;
    const { text, closedAfterMs } = await rawExchange(port, [head]);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as ErrorBody;
    expect(body.error.code).toBe('request_timeout');
    expect(body.error.message).toMatch(/REQUEST_TIMEOUT_MS/);
    expect(closedAfterMs).toBeLessThan(3000);
  });

  it('close a socket whose headers never finish', async () => {
    const port = Number(new URL(server.url).port);
    const { text } = await rawExchange(port, ['GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n']);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
  });

  it('do not cut an answer that streams for longer than REQUEST_TIMEOUT_MS', async () => {
    server.gemini.setDelay(80);
    try {
      const started = Date.now();
      const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
      expect(Date.now() - started).toBeGreaterThan(400);
      expect(reply.events.at(-1)?.type).toBe('done');
      expect(answerText(reply.events).length).toBeGreaterThan(20);
    } finally {
      server.gemini.setDelay(0);
    }
  });
});

describe('rate limits of their own', () => {
  it('limit POST /feedback per reader to FEEDBACK_RATE_LIMIT_MAX', async () => {
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    const meta = reply.events[0] as MetaEvent;
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      last = await fetch(`${server.url}/feedback`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ message_id: meta.message_id, rating: 'up' }),
      });
      statuses.push(last.status);
      if (attempt < 4) await last.arrayBuffer();
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    await expectDocumentedError(last!, 429, 'rate_limited');
  });

  it('limit GET /conversations/:id per reader to CONVERSATION_RATE_LIMIT_MAX', async () => {
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    const meta = reply.events[0] as MetaEvent;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const response = await fetch(`${server.url}/conversations/${meta.conversation_id}`);
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
