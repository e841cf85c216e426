/**
 * The server with the neural embedder for real (model in worker threads): it
 * answers searches and long questions, reports its embedder on /health, and
 * when the embedder's queue is full it answers 503 service_busy with
 * retry-after instead of letting questions pile up.
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
});
