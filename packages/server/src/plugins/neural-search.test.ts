/**
 * The server with the neural embedder for real (model in worker threads): it
 * answers searches and long questions, reports its embedder on /health, and
 * when the embedder's queue is full it answers 503 service_busy with
 * retry-after instead of letting questions pile up, for searches and for
 * chat questions alike (a refused chat question is not stored).
 */
import { createTestIndex, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';
import type { SearchResponseBody } from './search-routes.js';

let index: TestIndex;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex({ embedder: 'neural' });
  // One thread and no waiting room: a burst of questions must overflow it.
  server = await startTestServer({ index, env: { EMBEDDING_THREADS: '1', EMBEDDING_QUEUE_LIMIT: '0', RETRIEVAL_CACHE_SIZE: '0' } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await index?.remove();
});

describe('search with the neural embedder', () => {
  it('finds the section for a question and names its embedder on /health', async () => {
    const body = (await (
      await fetch(`${server.url}/search?q=${encodeURIComponent('persist the state across page reloads')}`)
    ).json()) as SearchResponseBody;
    expect(body.results[0]?.file).toBe('guides/configuring-the-harbor.md');
    const health = (await (await fetch(`${server.url}/health`)).json()) as {
      services: { embedder?: { provider: string; dimensions: number } };
    };
    expect(health.services.embedder).toMatchObject({ provider: 'neural', dimensions: 896 });
  });

  it('answers 503 service_busy with retry-after once its queue is full, and serves again afterwards', async () => {
    const questions = Array.from({ length: 6 }, (_, index) => `how do I persist the harbor state number ${index} across reloads`);
    const responses = await Promise.all(questions.map((question) => fetch(`${server.url}/search?q=${encodeURIComponent(question)}`)));
    const busy = responses.filter((response) => response.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(responses.some((response) => response.status === 200)).toBe(true);
    const body = (await busy[0]!.json()) as { error: { code: string } };
    expect(body.error.code).toBe('service_busy');
    expect(Number(busy[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    for (const response of responses) if (!response.bodyUsed) await response.arrayBuffer();
    expect((await fetch(`${server.url}/search?q=${encodeURIComponent('persist the state across page reloads')}`)).status).toBe(200);
  });

  it('refuses chat questions that find the queue full with 503 service_busy and retry-after before any stream, and answers the rest', async () => {
    const questions = Array.from({ length: 6 }, (_, index) => `how do I keep the harbor state number ${index + 10} after a reload`);
    const responses = await Promise.all(
      questions.map((message) =>
        fetch(`${server.url}/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ message, mode: 'general' }),
        }),
      ),
    );
    const bodies = await Promise.all(responses.map((response) => response.text()));
    const busy = responses.flatMap((response, at) => (response.status === 503 ? [{ response, body: bodies[at]! }] : []));
    const streamed = responses.flatMap((response, at) => (response.status === 200 ? [bodies[at]!] : []));
    expect(busy.length).toBeGreaterThan(0);
    expect(streamed.length).toBeGreaterThan(0);
    expect(busy.length + streamed.length).toBe(questions.length);
    for (const { response, body } of busy) {
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect((JSON.parse(body) as { error: { code: string } }).error.code).toBe('service_busy');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // The questions let through are answered in full.
    for (const body of streamed) expect(body).toContain('"type":"done"');
  });
});
