import OpenAI, { APIError } from 'openai';
import { startOpenAIStandIn } from './openai-stand-in.js';
import type { OpenAIStandIn } from './openai-stand-in.js';

let standIn: OpenAIStandIn;
let client: OpenAI;
const model = 'gpt-4o-mini';
const prompt = 'Sources:\n[2] Middleware wraps dispatch.\n\nQuestion: what does middleware do?';

beforeAll(async () => {
  standIn = await startOpenAIStandIn();
  client = new OpenAI({ apiKey: standIn.apiKey, baseURL: standIn.baseUrl, maxRetries: 0 });
});
afterEach(() => standIn.reset());
afterAll(() => standIn.close());

describe('OpenAI-compatible stand-in driven by the openai SDK', () => {
  it('streams chunks ending in [DONE] with usage when include_usage is asked for', async () => {
    const stream = await client.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: prompt }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toContain('[2]');
    expect(text).not.toMatch(/\[(1|3)\]/);
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    const usage = chunks[chunks.length - 1]!.usage;
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
    expect(standIn.lastStream?.outcome).toBe('completed');
  });

  it('leaves usage out of a stream unless it is asked for', async () => {
    const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
  });

  it('answers a non-streaming completion with the text a respond hook chose and cuts it at max_tokens', async () => {
    standIn.setReply((request) => `you said ${request.lastUserText}`);
    const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'one two three' }] });
    expect(completion.choices[0]?.message.content).toBe('you said one two three');
    const cut = await client.chat.completions.create({ model, max_tokens: 2, messages: [{ role: 'user', content: 'one two three' }] });
    expect(cut.choices[0]?.finish_reason).toBe('length');
  });

  it('rejects a wrong key with a 401 AuthenticationError carrying the invalid_api_key code', async () => {
    const wrong = new OpenAI({ apiKey: 'sk-wrong-key-123456', baseURL: standIn.baseUrl, maxRetries: 0 });
    const error = await wrong.models.list().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as APIError).code).toBe('invalid_api_key');
    expect((error as APIError).message).not.toContain('sk-wrong-key-123456');
  });

  it('answers 404 for an unknown model and serves the model list', async () => {
    const error = await client.embeddings.create({ model: 'nope', input: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const listed = [];
    for await (const entry of client.models.list()) listed.push(entry.id);
    expect(listed).toContain('text-embedding-3-small');
    expect((await client.models.retrieve('gpt-4o-mini')).id).toBe('gpt-4o-mini');
  });

  it('surfaces a forced 429 as a RateLimitError with a retry-after header', async () => {
    standIn.failNext({ status: 429, retryAfterSeconds: 0.2 });
    const error = await client.chat.completions
      .create({ model, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as APIError).status).toBe(429);
    expect((error as APIError).headers?.get('retry-after')).toBe('0.2');
  });

  it('surfaces a forced 503 as an InternalServerError', async () => {
    standIn.failNext({ status: 503, endpoint: 'embeddings' });
    const error = await client.embeddings.create({ model: 'text-embedding-3-small', input: 'x' }).catch((caught: unknown) => caught);
    expect((error as APIError).status).toBe(503);
  });

  it('makes a stream cut before [DONE] fail in the client', async () => {
    standIn.cutStreamAfter(2);
    const received: string[] = [];
    const failure = await (async () => {
      const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: prompt }] });
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((caught: unknown) => caught);
    expect((failure as Error).message).toMatch(/terminated|socket|closed|premature/i);
    expect(received).toHaveLength(2);
    expect(standIn.lastStream?.outcome).toBe('cut');
  });

  it('notices when the client aborts a slow stream', async () => {
    standIn.setDelay(50);
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model, stream: true, messages: [{ role: 'user', content: prompt }] },
      { signal: controller.signal },
    );
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    // The openai SDK ends the iteration quietly on abort instead of throwing.
    await expect(iterator.next()).resolves.toMatchObject({ done: true });
    await expect(standIn.lastStream!.closed).resolves.toBe('client-disconnected');
  });

  it('returns float and base64 embeddings of the requested dimensions that decode to the same vector', async () => {
    const asFloat = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['store setup', 'reducer logic'],
      dimensions: 64,
      encoding_format: 'float',
    });
    expect(asFloat.data.map((entry) => entry.embedding.length)).toEqual([64, 64]);
    // Without encoding_format the SDK asks for base64 and decodes it itself.
    const asBase64 = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['store setup', 'reducer logic'],
      dimensions: 64,
    });
    expect(standIn.requests[1]!.body).toMatchObject({ encoding_format: 'base64' });
    asBase64.data.forEach((entry, index) => {
      entry.embedding.forEach((value, position) => expect(value).toBeCloseTo(asFloat.data[index]!.embedding[position]!, 5));
    });
  });
});
