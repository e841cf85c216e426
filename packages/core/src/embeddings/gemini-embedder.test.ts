import { startGeminiStandIn } from '@docs-chat/stand-ins';
import type { GeminiStandIn } from '@docs-chat/stand-ins';
import { DocsChatError } from '../errors.js';
import { withRetries } from '../retry.js';
import { createGeminiEmbedder } from './gemini-embedder.js';
import type { Embedder } from './embedder.js';

let standIn: GeminiStandIn;
let embedder: Embedder;

interface BatchBody {
  requests: { model: string; content: { parts: { text: string }[] }; taskType?: string; title?: string; outputDimensionality?: number }[];
}

beforeAll(async () => {
  standIn = await startGeminiStandIn();
  embedder = createGeminiEmbedder({ apiKey: standIn.apiKey, baseUrl: standIn.url });
});
afterEach(() => standIn.reset());
afterAll(() => standIn.close());

const norm = (vector: Float32Array): number => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const rejection = (promise: Promise<unknown>): Promise<DocsChatError> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as DocsChatError,
  );

describe('createGeminiEmbedder against the Gemini stand-in', () => {
  it('sends one batchEmbedContents request with RETRIEVAL_DOCUMENT, each text its own title, and 768 dimensions', async () => {
    const vectors = await embedder.embed({
      texts: ['Reducers are pure.', 'Slices group reducers.', 'Install the package.'],
      titles: ['Reducers', 'Slices', ''],
      task: 'document',
    });
    expect(vectors).toHaveLength(3);
    expect(standIn.requests).toHaveLength(1);
    expect(standIn.requests[0]!.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    const body = standIn.requests[0]!.body as BatchBody;
    expect(body.requests).toEqual([
      {
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text: 'Reducers are pure.' }], role: 'user' },
        taskType: 'RETRIEVAL_DOCUMENT',
        title: 'Reducers',
        outputDimensionality: 768,
      },
      {
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text: 'Slices group reducers.' }], role: 'user' },
        taskType: 'RETRIEVAL_DOCUMENT',
        title: 'Slices',
        outputDimensionality: 768,
      },
      {
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text: 'Install the package.' }], role: 'user' },
        taskType: 'RETRIEVAL_DOCUMENT',
        outputDimensionality: 768,
      },
    ]);
  });

  it('sends queries as RETRIEVAL_QUERY without a title', async () => {
    await embedder.embed({ texts: ['how do reducers work?'], task: 'query', titles: ['ignored'] });
    const body = standIn.requests[0]!.body as BatchBody;
    expect(body.requests[0]!.taskType).toBe('RETRIEVAL_QUERY');
    expect(body.requests[0]!.title).toBeUndefined();
  });

  it('returns unit-length Float32Array vectors of the configured size although Gemini does not normalise them', async () => {
    const small = createGeminiEmbedder({ apiKey: standIn.apiKey, baseUrl: standIn.url, dimensions: 256 });
    const [vector] = await small.embed({ texts: ['configure the store'], task: 'query' });
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector).toHaveLength(256);
    expect(norm(vector!)).toBeCloseTo(1, 5);
  });

  it('refuses more than 100 texts in one call before sending anything', async () => {
    expect(embedder.maxBatchSize).toBe(100);
    const texts = Array.from({ length: 101 }, (_, index) => `text ${index}`);
    await expect(embedder.embed({ texts, task: 'document' })).rejects.toThrow(RangeError);
    expect(standIn.requests).toHaveLength(0);
  });

  it('maps a 429 to a retryable embedder_rate_limited error carrying the RetryInfo delay', async () => {
    standIn.failNext({ status: 429, retryDelay: '0.2s' });
    const error = await rejection(embedder.embed({ texts: ['a'], task: 'document' }));
    expect(error).toBeInstanceOf(DocsChatError);
    expect(error).toMatchObject({ code: 'embedder_rate_limited', retryable: true, retryAfterMs: 200, status: 429 });
  });

  it('succeeds under withRetries after a 429, waiting at least the delay Gemini asked for', async () => {
    standIn.failNext({ status: 429, retryDelay: '0.2s' });
    const started = Date.now();
    const vectors = await withRetries(() => embedder.embed({ texts: ['a'], task: 'document' }), { baseDelayMs: 1 });
    expect(vectors).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(standIn.requests).toHaveLength(2);
  });

  it('succeeds under withRetries after a 503', async () => {
    standIn.failNext({ status: 503, times: 2 });
    await withRetries(() => embedder.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 });
    expect(standIn.requests).toHaveLength(3);
  });

  it('does not retry a bad key and tells the admin to check GEMINI_API_KEY', async () => {
    const wrongKey = createGeminiEmbedder({ apiKey: 'wrong', baseUrl: standIn.url });
    const error = await rejection(withRetries(() => wrongKey.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 }));
    expect(error).toMatchObject({ code: 'embedder_rejected', retryable: false, status: 400 });
    expect(error.hint).toContain('GEMINI_API_KEY');
    expect(error.describe()).not.toContain('wrong');
    expect(standIn.requests).toHaveLength(1);
  });

  it('does not retry a 403 and says the key may lack access', async () => {
    standIn.failNext({ status: 403, message: 'Permission denied.' });
    const error = await rejection(withRetries(() => embedder.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 }));
    expect(error).toMatchObject({ code: 'embedder_rejected', status: 403 });
    expect(error.hint).toContain('GEMINI_API_KEY');
    expect(standIn.requests).toHaveLength(1);
  });

  it('does not retry an unknown model and suggests an EMBEDDING_MODEL that works', async () => {
    const retired = createGeminiEmbedder({ apiKey: standIn.apiKey, baseUrl: standIn.url, model: 'text-embedding-004' });
    const error = await rejection(withRetries(() => retired.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 }));
    expect(error).toMatchObject({ code: 'embedder_rejected', status: 404 });
    expect(error.message).toContain('text-embedding-004');
    expect(error.hint).toContain('EMBEDDING_MODEL to gemini-embedding-001');
    expect(standIn.requests).toHaveLength(1);
  });

  it('reports an unreachable server as retryable embedder_unavailable', async () => {
    const nowhere = createGeminiEmbedder({ apiKey: 'k', baseUrl: 'http://127.0.0.1:9' });
    const error = await rejection(nowhere.embed({ texts: ['a'], task: 'query' }));
    expect(error).toMatchObject({ code: 'embedder_unavailable', retryable: true });
  });

  it('turns a cancelled request into an aborted error', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(embedder.embed({ texts: ['a'], task: 'query', signal: controller.signal }));
    expect(error.code).toBe('aborted');
  });
});
