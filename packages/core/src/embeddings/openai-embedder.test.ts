import { startOpenAIStandIn } from '@docs-chat/stand-ins';
import type { OpenAIStandIn } from '@docs-chat/stand-ins';
import type { DocsChatError } from '../errors.js';
import { withRetries } from '../retry.js';
import { createOpenAIEmbedder } from './openai-embedder.js';
import type { Embedder } from './embedder.js';

let standIn: OpenAIStandIn;
let embedder: Embedder;

beforeAll(async () => {
  standIn = await startOpenAIStandIn();
  embedder = createOpenAIEmbedder({ apiKey: standIn.apiKey, baseUrl: standIn.baseUrl, model: 'text-embedding-3-small', dimensions: 512 });
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

describe('createOpenAIEmbedder against the OpenAI-compatible stand-in', () => {
  it('asks for float vectors of the configured size and returns them unit-length, in order', async () => {
    const vectors = await embedder.embed({
      texts: ['store setup', 'reducer logic', 'store setup'],
      task: 'document',
      titles: ['a', 'b', 'c'],
    });
    expect(standIn.requests[0]!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['store setup', 'reducer logic', 'store setup'],
      encoding_format: 'float',
      dimensions: 512,
    });
    expect(vectors.map((vector) => vector.length)).toEqual([512, 512, 512]);
    vectors.forEach((vector) => expect(norm(vector)).toBeCloseTo(1, 5));
    expect(vectors[0]).toEqual(vectors[2]);
    expect(vectors[0]).not.toEqual(vectors[1]);
  });

  it('leaves dimensions out for a model whose native size it knows, and rejects vectors of another size', async () => {
    const native = createOpenAIEmbedder({ apiKey: standIn.apiKey, baseUrl: standIn.baseUrl, model: 'nomic-embed-text' });
    expect(native.dimensions).toBe(768);
    await expect(native.embed({ texts: ['x'], task: 'query' })).rejects.toMatchObject({ code: 'embedder_rejected' });
    expect(standIn.requests[0]!.body).not.toHaveProperty('dimensions');
  });

  it('asks for EMBEDDING_DIMENSIONS when the model is unknown and no size was given', () => {
    expect(() => createOpenAIEmbedder({ baseUrl: standIn.baseUrl, model: 'my-custom-embedder' })).toThrow(
      expect.objectContaining({ code: 'config_invalid', hint: expect.stringContaining('EMBEDDING_DIMENSIONS') }),
    );
  });

  it('maps a 429 to embedder_rate_limited with the retry-after delay, and succeeds under withRetries', async () => {
    standIn.failNext({ status: 429, retryAfterSeconds: 0.2 });
    const error = await rejection(embedder.embed({ texts: ['a'], task: 'query' }));
    expect(error).toMatchObject({ code: 'embedder_rate_limited', retryable: true, retryAfterMs: 200 });

    standIn.failNext({ status: 429, retryAfterSeconds: 0.2 });
    const started = Date.now();
    await withRetries(() => embedder.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(standIn.requests).toHaveLength(3);
  });

  it('retries a 503 under withRetries, the SDK itself making a single attempt', async () => {
    standIn.failNext({ status: 503 });
    const error = await rejection(embedder.embed({ texts: ['a'], task: 'query' }));
    expect(error).toMatchObject({ code: 'embedder_unavailable', retryable: true });
    expect(standIn.requests).toHaveLength(1);
    standIn.failNext({ status: 503 });
    await withRetries(() => embedder.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 });
    expect(standIn.requests).toHaveLength(3);
  });

  it('does not retry a wrong key and points at OPENAI_API_KEY without echoing the key', async () => {
    const wrongKey = createOpenAIEmbedder({ apiKey: 'sk-secret-wrong-key', baseUrl: standIn.baseUrl, dimensions: 8 });
    const error = await rejection(withRetries(() => wrongKey.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 }));
    expect(error).toMatchObject({ code: 'embedder_rejected', status: 401 });
    expect(error.hint).toContain('OPENAI_API_KEY');
    expect(error.describe()).not.toContain('secret');
    expect(standIn.requests).toHaveLength(1);
  });

  it('does not retry an unknown model and names it', async () => {
    const unknown = createOpenAIEmbedder({ apiKey: standIn.apiKey, baseUrl: standIn.baseUrl, model: 'no-such-model', dimensions: 8 });
    const error = await rejection(withRetries(() => unknown.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 }));
    expect(error).toMatchObject({ code: 'embedder_rejected', status: 404 });
    expect(error.message).toContain('no-such-model');
    expect(error.hint).toContain('EMBEDDING_MODEL');
    expect(standIn.requests).toHaveLength(1);
  });

  it('does not retry a 400 and passes on what the server objected to', async () => {
    standIn.failNext({ status: 400, message: 'This model maximum context length is 8192 tokens.' });
    const error = await rejection(withRetries(() => embedder.embed({ texts: ['a'], task: 'query' }), { baseDelayMs: 1 }));
    expect(error).toMatchObject({ code: 'embedder_rejected', status: 400 });
    expect(error.message).toContain('8192 tokens');
  });

  it('turns a cancelled request into an aborted error', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(embedder.embed({ texts: ['a'], task: 'query', signal: controller.signal }));
    expect(error.code).toBe('aborted');
  });
});
