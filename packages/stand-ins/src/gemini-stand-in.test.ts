import { ApiError, GoogleGenAI } from '@google/genai';
import { startGeminiStandIn } from './gemini-stand-in.js';
import type { GeminiStandIn } from './gemini-stand-in.js';

let standIn: GeminiStandIn;
let ai: GoogleGenAI;
const model = 'gemini-3.8-flash';
const prompt = 'Sources:\n[1] Reducers are pure functions.\n[3] Store holds state.\n\nQuestion: what is a reducer?';

beforeAll(async () => {
  standIn = await startGeminiStandIn();
  ai = new GoogleGenAI({ apiKey: standIn.apiKey, httpOptions: { baseUrl: standIn.url } });
});
afterEach(() => standIn.reset());
afterAll(() => standIn.close());

async function collect(stream: AsyncGenerator<{ text?: string | undefined }>): Promise<string[]> {
  const texts: string[] = [];
  for await (const chunk of stream) texts.push(chunk.text ?? '');
  return texts;
}

describe('Gemini stand-in driven by @google/genai', () => {
  it('streams an answer in several events that cites exactly the sources given in the prompt', async () => {
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: prompt })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    const text = chunks.map((chunk) => chunk.text ?? '').join('');
    expect([...text.matchAll(/\[(\d+)\]/g)].map((match) => match[1])).toEqual(['1', '3', '1', '3']);
    const last = chunks[chunks.length - 1]!;
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks[0]!.candidates?.[0]?.finishReason).toBeUndefined();
    // Usage is cumulative: it only grows and the last event holds the total.
    const counts = chunks.map((chunk) => chunk.usageMetadata?.candidatesTokenCount ?? 0);
    expect(counts).toEqual([...counts].sort((left, right) => left - right));
    expect(last.usageMetadata?.totalTokenCount).toBe(
      (last.usageMetadata?.promptTokenCount ?? 0) + (last.usageMetadata?.candidatesTokenCount ?? 0),
    );
    expect(standIn.requests[0]).toMatchObject({
      method: 'POST',
      path: `/v1beta/models/${model}:streamGenerateContent`,
      query: { alt: 'sse' },
    });
    expect(standIn.requests[0]!.headers['x-goog-api-key']).toBeUndefined();
    expect(standIn.lastStream?.outcome).toBe('completed');
  });

  it('answers generateContent in one response with the text a respond hook chose', async () => {
    standIn.setReply((request) => `echo: ${request.lastUserText}`);
    const response = await ai.models.generateContent({ model, contents: 'hello there', config: { systemInstruction: 'be brief' } });
    expect(response.text).toBe('echo: hello there');
    expect(standIn.requests[0]!.body).toMatchObject({ systemInstruction: { parts: [{ text: 'be brief' }] } });
  });

  it('rejects a wrong key with the real 400 API_KEY_INVALID body', async () => {
    const wrong = new GoogleGenAI({ apiKey: 'wrong', httpOptions: { baseUrl: standIn.url } });
    const error = await wrong.models.generateContent({ model, contents: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect(JSON.parse((error as ApiError).message)).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', details: expect.arrayContaining([expect.objectContaining({ reason: 'API_KEY_INVALID' })]) },
    });
  });

  it('answers 404 for an unknown model and lists the models it knows', async () => {
    const error = await ai.models.generateContent({ model: 'text-embedding-004', contents: 'hi' }).catch((caught: unknown) => caught);
    expect((error as ApiError).status).toBe(404);
    const model = await ai.models.get({ model: 'gemini-embedding-001' });
    expect(model.name).toBe('models/gemini-embedding-001');
    const names: string[] = [];
    for await (const listed of await ai.models.list()) names.push(listed.name ?? '');
    expect(names).toContain('models/gemini-flash-latest');
  });

  it('surfaces a forced 429 as an ApiError whose body carries the RetryInfo delay', async () => {
    standIn.failNext({ status: 429, retryDelay: '0.2s' });
    const error = await ai.models.generateContent({ model, contents: 'hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    const body = JSON.parse((error as ApiError).message) as { error: { status: string; details: { retryDelay?: string }[] } };
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.details.some((detail) => detail.retryDelay === '0.2s')).toBe(true);
    // Only the next request failed.
    await expect(ai.models.generateContent({ model, contents: 'hi' })).resolves.toBeDefined();
  });

  it('surfaces a forced 503 as an ApiError with status 503', async () => {
    standIn.failNext({ status: 503 });
    const error = await ai.models.generateContentStream({ model, contents: 'hi' }).catch((caught: unknown) => caught);
    expect((error as ApiError).status).toBe(503);
  });

  it('makes a stream cut mid-way fail in the client after the events already sent', async () => {
    standIn.cutStreamAfter(2);
    const received: string[] = [];
    const failure = await (async () => {
      for await (const chunk of await ai.models.generateContentStream({ model, contents: prompt })) received.push(chunk.text ?? '');
    })().catch((caught: unknown) => caught);
    // undici's TypeError comes from Node's realm, not Jest's, so check its shape rather than its class.
    expect((failure as Error).message).toMatch(/terminated|socket|closed/i);
    expect(received).toHaveLength(2);
    expect(standIn.lastStream?.outcome).toBe('cut');
  });

  it('can end a stream with an event that carries only the finish reason', async () => {
    standIn.lastEventOnlyFinishReason = true;
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: prompt })) chunks.push(chunk);
    const last = chunks[chunks.length - 1]!;
    expect(last.text).toBeUndefined();
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates?.[0]?.finishReason === undefined)).toBe(true);
  });

  it('blocks a prompt with promptFeedback and no candidates', async () => {
    standIn.blockPrompt('SAFETY');
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents: 'hi' })) chunks.push(chunk);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.promptFeedback?.blockReason).toBe('SAFETY');
    expect(chunks[0]!.candidates).toBeUndefined();
  });

  it('keeps thought parts out of chunk.text when it emits them', async () => {
    standIn.emitThoughts = true;
    standIn.setReply('plain answer');
    const texts = await collect(await ai.models.generateContentStream({ model, contents: 'hi' }));
    expect(texts.join('')).toBe('plain answer');
  });

  it('notices when the client aborts a slow stream', async () => {
    standIn.setDelay(50);
    const controller = new AbortController();
    const stream = await ai.models.generateContentStream({ model, contents: prompt, config: { abortSignal: controller.signal } });
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await expect(iterator.next()).rejects.toThrow();
    await expect(standIn.lastStream!.closed).resolves.toBe('client-disconnected');
    expect(standIn.lastStream!.signal.aborted).toBe(true);
  });

  it('embeds a batch with vectors of the requested length, the same text giving the same vector', async () => {
    const response = await ai.models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['reducers update state', 'reducers update state', 'bananas are yellow'],
      config: { taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 768 },
    });
    const vectors = response.embeddings!.map((embedding) => embedding.values!);
    expect(vectors.map((vector) => vector.length)).toEqual([768, 768, 768]);
    expect(vectors[0]).toEqual(vectors[1]);
    expect(vectors[0]).not.toEqual(vectors[2]);
    expect(standIn.requests[0]!.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });

  it('gives texts sharing words more similar embeddings than unrelated texts', async () => {
    const response = await ai.models.embedContent({
      model: 'gemini-embedding-001',
      contents: ['configure the redux store', 'how to configure a redux store', 'weather in paris tomorrow'],
      config: { outputDimensionality: 256 },
    });
    const [a, b, c] = response.embeddings!.map((embedding) => embedding.values!);
    const cosine = (x: number[], y: number[]): number => {
      let dot = 0,
        nx = 0,
        ny = 0;
      x.forEach((value, index) => {
        dot += value * y[index]!;
        nx += value * value;
        ny += y[index]! * y[index]!;
      });
      return dot / Math.sqrt(nx * ny);
    };
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, c!) + 0.3);
  });

  it('rejects a batch of more than 100 texts with 400', async () => {
    const contents = Array.from({ length: 101 }, (_, index) => `text ${index}`);
    const error = await ai.models.embedContent({ model: 'gemini-embedding-001', contents }).catch((caught: unknown) => caught);
    expect((error as ApiError).status).toBe(400);
  });

  it('closes promptly even while a slow stream holds a connection open', async () => {
    const own = await startGeminiStandIn({ eventDelayMs: 1000 });
    const client = new GoogleGenAI({ apiKey: own.apiKey, httpOptions: { baseUrl: own.url } });
    const consuming = (async () => {
      for await (const chunk of await client.models.generateContentStream({ model, contents: prompt })) void chunk;
    })().catch((caught: unknown) => caught);
    while (own.streams.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(own.openConnections()).toBe(1);
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(500);
    expect(own.openConnections()).toBe(0);
    expect(await consuming).toBeDefined();
  });

  it('accepts the legacy ?key= parameter and answers a request without any key with 403 PERMISSION_DENIED', async () => {
    const withQueryKey = await fetch(`${standIn.url}/v1beta/models/gemini-flash-latest?key=${standIn.apiKey}`);
    expect(withQueryKey.status).toBe(200);
    expect(standIn.requests[0]!.query).toEqual({});
    const withoutKey = await fetch(`${standIn.url}/v1beta/models`);
    expect(withoutKey.status).toBe(403);
    expect(await withoutKey.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
  });
});
