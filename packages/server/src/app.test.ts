import type { MetaEvent } from '@docs-chat/core/protocol';
import { answerText, createTestIndex, postChat, startTestServer, type TestIndex, type TestServer } from './testing/test-server.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

const ADMIN_TOKEN = 'app-test-admin-token-fedcba9876543210';

let index: TestIndex;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex();
  server = await startTestServer({
    index,
    env: {
      RATE_LIMIT_MAX: '3',
      RATE_LIMIT_WINDOW_MS: '60000',
      CORS_ORIGINS: 'http://localhost:3000,https://docs.example.com',
      ADMIN_TOKEN,
    },
  });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await index?.remove();
});

describe('cross-origin requests', () => {
  it('are allowed from an origin in CORS_ORIGINS, with the protocol header exposed', async () => {
    const response = await fetch(`${server.url}/health`, { headers: { origin: 'https://docs.example.com' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://docs.example.com');
    expect(response.headers.get('access-control-expose-headers')).toMatch(/x-docs-chat-protocol/);
  });

  it('answer a preflight from an allowed origin', async () => {
    const response = await fetch(`${server.url}/chat`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(response.headers.get('access-control-allow-methods')).toMatch(/POST/);
  });

  it('are refused with 403 from any other origin, saying which variable to change', async () => {
    const response = await fetch(`${server.url}/search?q=harbor`, { headers: { origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('origin_not_allowed');
    expect(body.error.message).toMatch(/CORS_ORIGINS/);
  });
});

describe('the chat rate limit', () => {
  it('answers 429 with a clear message and retry-after once a reader exceeds RATE_LIMIT_MAX', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof postChat>> | undefined;
    for (let attempt = 0; attempt < 4; attempt += 1) {
      last = await postChat(server.url, { message: 'hello', mode: 'general' });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(last?.headers.get('x-ratelimit-limit')).toBe('3');
    const body = last?.json as { error: { code: string; message: string } };
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.message).toMatch(/Too many requests .*limit 3 per minute.*please wait/);
  });

  it('does not count health polls', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    }
  });
});

describe('every response', () => {
  it('carries a request id, keeping a well-formed one sent by a proxy', async () => {
    const fresh = await fetch(`${server.url}/health`);
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const forwarded = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'lb-1234' } });
    expect(forwarded.headers.get('x-request-id')).toBe('lb-1234');
    const hostile = await fetch(`${server.url}/health`, { headers: { 'x-request-id': 'a b\tc' } });
    expect(hostile.headers.get('x-request-id')).not.toBe('a b\tc');
  });

  it('answers an unknown route with 404 listing the endpoints', async () => {
    const response = await fetch(`${server.url}/nope`);
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { message: string }; request_id: string };
    expect(body.error.message).toMatch(/POST \/chat/);
    expect(body.request_id).toBe(response.headers.get('x-request-id'));
  });
});

describe('the logs', () => {
  it('are JSON lines with the request id and never hold the question, the answer or a key', async () => {
    const secretQuestion = 'What are the options for configuring the harbor?';
    const other = await startTestServer({ index, env: { ADMIN_TOKEN, RATE_LIMIT_MAX: '100' } });
    try {
      const reply = await postChat(other.url, { message: secretQuestion, mode: 'general' });
      const meta = reply.events[0] as MetaEvent;
      const answer = answerText(reply.events);
      await fetch(`${other.url}/search?q=zebra-tangerine`);
      await fetch(`${other.url}/admin/ingest`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      await fetch(`${other.url}/health`, { headers: { 'x-goog-api-key': other.gemini.apiKey } });

      const text = other.logs.text;
      expect(text).not.toContain('options for configuring');
      expect(text).not.toContain('zebra-tangerine');
      expect(text).not.toContain(answer.slice(0, 40));
      expect(text).not.toContain(other.gemini.apiKey);
      expect(text).not.toContain(ADMIN_TOKEN);

      const entries = other.logs.entries();
      const chatLines = entries.filter((entry) => entry.conversationId === meta.conversation_id);
      expect(chatLines.length).toBeGreaterThan(0);
      expect(typeof chatLines[0]?.requestId).toBe('string');
      const finished = chatLines.find((entry) => entry.msg === 'chat answer finished');
      expect(finished).toMatchObject({ finishReason: 'stop', persisted: true, hits: expect.any(Number) });
      expect(finished?.retrievalMs).toEqual(expect.any(Number));
      expect(finished?.firstTextMs).toEqual(expect.any(Number));
      expect(finished?.durationMs).toEqual(expect.any(Number));
      expect(entries.some((entry) => entry.msg === 'docs-chat server ready')).toBe(true);
      expect(entries.some((entry) => (entry.req as { path?: string } | undefined)?.path === '/search')).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('hold one line per streamed answer at the default level, with the path, the outcome and the durations', async () => {
    const other = await startTestServer({ index, env: { RATE_LIMIT_MAX: '100' } });
    try {
      const reply = await postChat(other.url, { message: 'How do I install Tidewater?', mode: 'general' });
      const meta = reply.events[0] as MetaEvent;
      const requestId = other.logs.entries().find((entry) => entry.conversationId === meta.conversation_id)?.requestId;
      const lines = other.logs.entries().filter((entry) => entry.requestId === requestId);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        msg: 'chat answer finished',
        req: { method: 'POST', path: '/chat' },
        finishReason: 'stop',
        durationMs: expect.any(Number),
      });
    } finally {
      await other.close();
    }
  });

  it('hold one line per request, written when it completes, with method, path without query, status and duration', async () => {
    const other = await startTestServer({ index, env: { RATE_LIMIT_MAX: '100' } });
    try {
      const response = await fetch(`${other.url}/search?q=harbor-lantern`);
      await response.arrayBuffer();
      const requestId = response.headers.get('x-request-id');
      const lines = other.logs.entries().filter((entry) => entry.requestId === requestId);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        msg: 'request completed',
        req: { method: 'GET', path: '/search' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      });
    } finally {
      await other.close();
    }
  });
});
