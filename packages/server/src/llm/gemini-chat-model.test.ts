/**
 * The Gemini chat model driven through the real @google/genai client against
 * the local Gemini stand-in (same REST + SSE wire format as the real API).
 */
import { startGeminiStandIn } from '@docs-chat/stand-ins';
import type { GeminiStandIn } from '@docs-chat/stand-ins';
import type { ChatModel } from './chat-model.js';
import { createChatModel } from './create-chat-model.js';
import { chatRequest, deadPort, drain, streamOf } from './chat-model-test-support.js';
import { createGeminiChatModel, DEFAULT_GEMINI_MODEL } from './gemini-chat-model.js';

const FAST_RETRIES = { attempts: 3, baseDelayMs: 20, maxServerDelayMs: 5_000 };

describe('the Gemini chat model', () => {
  let standIn: GeminiStandIn;
  let model: ChatModel;

  beforeAll(async () => {
    standIn = await startGeminiStandIn({ replyText: 'Add middleware with applyMiddleware when you create the store [1].' });
  });

  beforeEach(() => {
    standIn.reset();
    model = createGeminiChatModel({ apiKey: standIn.apiKey, model: 'gemini-3.8-flash', baseUrl: standIn.url, retryPolicy: FAST_RETRIES });
  });

  afterAll(async () => {
    await standIn.close();
  });

  function generateRequests() {
    return standIn.requests.filter((request) => request.path.includes(':streamGenerateContent'));
  }

  it('streams the answer in several pieces and finishes with the usage of the last event', async () => {
    const result = await streamOf(model);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe('Add middleware with applyMiddleware when you create the store [1].');
    expect(result.events.filter((event) => event.type === 'text').length).toBeGreaterThan(1);
    expect(result.finish?.reason).toBe('stop');
    expect(result.finish?.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(result.finish?.usage?.completion_tokens).toBeGreaterThan(0);
    expect(result.finish?.usage?.total_tokens).toBe(
      (result.finish?.usage?.prompt_tokens ?? 0) + (result.finish?.usage?.completion_tokens ?? 0),
    );
  });

  it('sends the instructions as systemInstruction and the history with the user and model roles', async () => {
    await streamOf(model, {
      messages: [
        { role: 'user', content: 'What is a reducer?' },
        { role: 'assistant', content: 'A pure function [1].' },
        { role: 'user', content: 'And middleware?' },
      ],
      temperature: 0.2,
      maxOutputTokens: 512,
    });
    const body = generateRequests()[0]?.body as {
      contents: { role: string; parts: { text: string }[] }[];
      systemInstruction: { parts: { text: string }[] };
      generationConfig: { temperature: number; maxOutputTokens: number };
    };
    expect(body.contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(body.contents[2]?.parts[0]?.text).toBe('And middleware?');
    expect(body.systemInstruction.parts[0]?.text).toContain('Answer only from the numbered sources.');
    expect(body.generationConfig).toMatchObject({ temperature: 0.2, maxOutputTokens: 512 });
  });

  it('leaves the thinking parts of a thinking model out of the answer', async () => {
    standIn.emitThoughts = true;
    const result = await streamOf(model);
    expect(result.text).toBe('Add middleware with applyMiddleware when you create the store [1].');
    expect(result.text).not.toContain('Let me look');
  });

  it('finishes normally when the last event carries only the finish reason', async () => {
    standIn.lastEventOnlyFinishReason = true;
    const result = await streamOf(model);
    expect(result.error).toBeUndefined();
    expect(result.finish?.reason).toBe('stop');
    expect(result.text).toBe('Add middleware with applyMiddleware when you create the store [1].');
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'safety'],
    ['RECITATION', 'safety'],
    ['BLOCKLIST', 'safety'],
    ['PROHIBITED_CONTENT', 'safety'],
    ['SPII', 'safety'],
    ['OTHER', 'other'],
  ])('reports the Gemini finish reason %s as %s', async (geminiReason, reason) => {
    standIn.setFinishReason(geminiReason);
    const result = await streamOf(model);
    expect(result.finish?.reason).toBe(reason);
  });

  it('reports an answer cut by the output token limit as finishing for length', async () => {
    const result = await streamOf(model, { maxOutputTokens: 3 });
    expect(result.text.trim().split(/\s+/)).toHaveLength(3);
    expect(result.finish?.reason).toBe('length');
  });

  it('fails with llm_blocked, without retrying, when Gemini blocks the prompt', async () => {
    standIn.blockPrompt('PROHIBITED_CONTENT');
    const result = await streamOf(model);
    expect(result.text).toBe('');
    expect(result.error?.code).toBe('llm_blocked');
    expect(result.error?.message).toContain('PROHIBITED_CONTENT');
    expect(generateRequests()).toHaveLength(1);
  });

  it('waits the RetryInfo delay after a 429 and then streams the answer', async () => {
    standIn.failNext({ status: 429, retryDelay: '0.2s' });
    const started = Date.now();
    const result = await streamOf(model);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe('Add middleware with applyMiddleware when you create the store [1].');
    expect(generateRequests()).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('tells the configured listener about each retry, with the failure and the wait', async () => {
    const retries: { attempt: number; delayMs: number; code: string }[] = [];
    const logged = createChatModel({
      provider: 'gemini',
      model: 'gemini-3.8-flash',
      apiKey: standIn.apiKey,
      baseUrl: standIn.url,
      onRetry: ({ attempt, delayMs, error }) => retries.push({ attempt, delayMs, code: error.code }),
    });
    standIn.failNext({ status: 429, retryDelay: '0.1s' });
    const result = await streamOf(logged);
    expect(result.error).toBeUndefined();
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, code: 'llm_rate_limited' });
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(100);
  });

  it('gives up with llm_rate_limited after three rate-limited attempts', async () => {
    standIn.failNext({ status: 429, retryDelay: '0.05s', times: 3 });
    const result = await streamOf(model);
    expect(result.error?.code).toBe('llm_rate_limited');
    expect(result.error?.retryable).toBe(true);
    expect(result.text).toBe('');
    expect(generateRequests()).toHaveLength(3);
  });

  it('does not wait at all when Gemini asks for a longer pause than a reader would bear', async () => {
    standIn.failNext({ status: 429, retryDelay: '42s' });
    const result = await streamOf(model);
    expect(result.error?.code).toBe('llm_rate_limited');
    expect(result.error?.retryAfterMs).toBe(42_000);
    expect(generateRequests()).toHaveLength(1);
  });

  it.each([500, 503, 504])('retries after a %i and streams the answer', async (status) => {
    standIn.failNext({ status });
    const result = await streamOf(model);
    expect(result.error).toBeUndefined();
    expect(result.finish?.reason).toBe('stop');
    expect(generateRequests()).toHaveLength(2);
  });

  it('fails with llm_unavailable when the service keeps failing', async () => {
    standIn.failNext({ status: 503, times: 5 });
    const result = await streamOf(model);
    expect(result.error?.code).toBe('llm_unavailable');
    expect(result.error?.status).toBe(503);
    expect(generateRequests()).toHaveLength(3);
  });

  it.each([
    [400, 'llm_rejected'],
    [403, 'llm_auth'],
    [404, 'llm_model_not_found'],
  ])('does not retry a %i and reports it as %s', async (status, code) => {
    standIn.failNext({ status, message: `forced ${status}` });
    const result = await streamOf(model);
    expect(result.error?.code).toBe(code);
    expect(result.error?.status).toBe(status);
    expect(generateRequests()).toHaveLength(1);
  });

  it('fails with llm_stream_cut after the partial text when the stream breaks mid-way, without retrying', async () => {
    standIn.cutStreamAfter(2);
    const result = await streamOf(model);
    expect(result.error?.code).toBe('llm_stream_cut');
    expect(result.text.length).toBeGreaterThan(0);
    expect('Add middleware with applyMiddleware when you create the store [1].'.startsWith(result.text)).toBe(true);
    expect(result.text).not.toBe('Add middleware with applyMiddleware when you create the store [1].');
    expect(result.finish).toBeUndefined();
    expect(generateRequests()).toHaveLength(1);
  });

  it('closes the upstream connection as soon as the reader aborts', async () => {
    standIn.setDelay(100);
    const controller = new AbortController();
    const result = await drain(model.stream(chatRequest({ signal: controller.signal })), () => controller.abort());
    expect(result.error?.code).toBe('aborted');
    const stream = standIn.lastStream;
    expect(stream).toBeDefined();
    await expect(stream?.closed).resolves.toBe('client-disconnected');
    expect(stream?.eventsSent).toBeLessThan(4);
  });

  it('closes the upstream connection when the caller stops reading part-way', async () => {
    standIn.setDelay(50);
    for await (const event of model.stream(chatRequest())) {
      if (event.type === 'text') break;
    }
    await expect(standIn.lastStream?.closed).resolves.toBe('client-disconnected');
  });

  it('stops waiting between retries when the reader aborts', async () => {
    standIn.failNext({ status: 429, retryDelay: '3s' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const result = await drain(model.stream(chatRequest({ signal: controller.signal })));
    expect(result.error?.code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(generateRequests()).toHaveLength(1);
  });

  it('fails an attempt that sends nothing within the timeout and retries it', async () => {
    const slow = createGeminiChatModel({
      apiKey: standIn.apiKey,
      model: 'gemini-3.8-flash',
      baseUrl: standIn.url,
      timeoutMs: 150,
      retryPolicy: FAST_RETRIES,
    });
    standIn.setDelay(1_000);
    const result = await streamOf(slow);
    expect(result.error?.code).toBe('llm_unavailable');
    expect(result.error?.message).toMatch(/sent nothing for 150 ms/);
    expect(generateRequests()).toHaveLength(3);
  });

  it('passes the start-up check with a valid key and a served model', async () => {
    await expect(model.verify()).resolves.toBeUndefined();
    expect(standIn.requests.at(-1)?.path).toBe('/v1beta/models/gemini-3.8-flash');
  });

  it('accepts a base URL given with the /v1beta suffix the SDK adds itself', async () => {
    const suffixed = createGeminiChatModel({ apiKey: standIn.apiKey, model: 'gemini-3.8-flash', baseUrl: `${standIn.url}/v1beta/` });
    await expect(suffixed.verify()).resolves.toBeUndefined();
  });

  it('fails the start-up check with llm_auth naming GEMINI_API_KEY when the key is wrong', async () => {
    const wrongKey = createGeminiChatModel({ apiKey: 'not-the-key', baseUrl: standIn.url });
    const error = await wrongKey.verify().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'llm_auth', status: 400 });
    expect((error as Error).message).toContain('GEMINI_API_KEY');
    expect((error as Error).message).not.toContain('not-the-key');
  });

  it('fails the start-up check with llm_model_not_found naming LLM_MODEL for an unknown model', async () => {
    const unknown = createGeminiChatModel({ apiKey: standIn.apiKey, model: 'gemini-0.1-retired', baseUrl: standIn.url });
    const error = await unknown.verify().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'llm_model_not_found', status: 404 });
    expect((error as Error).message).toContain('LLM_MODEL');
    expect((error as Error).message).toContain('gemini-0.1-retired');
  });

  it('fails the start-up check when LLM_MODEL names an embedding model that cannot answer', async () => {
    const embedder = createGeminiChatModel({ apiKey: standIn.apiKey, model: 'gemini-embedding-001', baseUrl: standIn.url });
    const error = await embedder.verify().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'llm_model_not_found' });
    expect((error as Error).message).toMatch(/gemini-embedding-001.*LLM_MODEL.*cannot generate text/);
  });

  it('fails the start-up check with llm_unavailable when nothing answers at the base URL', async () => {
    const nowhere = createGeminiChatModel({ apiKey: standIn.apiKey, baseUrl: `http://127.0.0.1:${await deadPort()}`, timeoutMs: 2_000 });
    const error = await nowhere.verify().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'llm_unavailable' });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('uses the current stable Flash alias when no model is configured', async () => {
    const byDefault = createChatModel({ provider: 'gemini', model: '', apiKey: standIn.apiKey, baseUrl: standIn.url });
    expect(byDefault.provider).toBe('gemini');
    expect(byDefault.model).toBe(DEFAULT_GEMINI_MODEL);
    await expect(byDefault.verify()).resolves.toBeUndefined();
  });

  it('refuses to create a Gemini model without a key, pointing at GEMINI_API_KEY', () => {
    expect(() => createChatModel({ provider: 'gemini', model: '' })).toThrow(
      expect.objectContaining({ code: 'llm_auth', hint: expect.stringContaining('GEMINI_API_KEY') }),
    );
  });
});
