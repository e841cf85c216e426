/**
 * The OpenAI-compatible chat model driven through the real `openai` client
 * against the local OpenAI-compatible stand-in.
 */
import { startOpenAIStandIn } from '@docs-chat/stand-ins';
import type { OpenAIStandIn } from '@docs-chat/stand-ins';
import type { ChatModel } from './chat-model.js';
import { createChatModel } from './create-chat-model.js';
import { chatRequest, deadPort, drain, streamOf } from './chat-model-test-support.js';
import { createOpenAIChatModel, DEFAULT_OPENAI_MODEL } from './openai-chat-model.js';

const FAST_RETRIES = { attempts: 3, baseDelayMs: 20, maxServerDelayMs: 5_000 };
const REPLY = 'Pass your middleware to the store setup call [1] and keep reducers pure [2].';

describe('the OpenAI-compatible chat model', () => {
  let standIn: OpenAIStandIn;
  let model: ChatModel;

  beforeAll(async () => {
    standIn = await startOpenAIStandIn({ replyText: REPLY });
  });

  beforeEach(() => {
    standIn.reset();
    model = createOpenAIChatModel({ apiKey: standIn.apiKey, model: 'gpt-4o-mini', baseUrl: standIn.baseUrl, retryPolicy: FAST_RETRIES });
  });

  afterAll(async () => {
    await standIn.close();
  });

  function chatRequests() {
    return standIn.requests.filter((request) => request.path === '/v1/chat/completions');
  }

  it('streams the answer in several pieces and finishes with the usage the server reports', async () => {
    const result = await streamOf(model);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(REPLY);
    expect(result.events.filter((event) => event.type === 'text').length).toBeGreaterThan(1);
    expect(result.finish?.reason).toBe('stop');
    expect(result.finish?.usage?.completion_tokens).toBeGreaterThan(0);
    expect(result.finish?.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('sends the instructions as a system message, the history, streaming and usage options', async () => {
    await streamOf(model, {
      messages: [
        { role: 'user', content: 'What is a reducer?' },
        { role: 'assistant', content: 'A pure function [1].' },
        { role: 'user', content: 'And middleware?' },
      ],
      maxOutputTokens: 300,
      temperature: 0.1,
    });
    const body = chatRequests()[0]?.body as {
      messages: { role: string; content: string }[];
      stream: boolean;
      stream_options: { include_usage: boolean };
      max_tokens: number;
      temperature: number;
    };
    expect(body.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(body.messages[0]?.content).toContain('Answer only from the numbered sources.');
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_tokens: 300, temperature: 0.1 });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content_filter', 'safety'],
    ['tool_calls', 'other'],
  ])('reports the finish reason %s as %s', async (serverReason, reason) => {
    standIn.setFinishReason(serverReason);
    const result = await streamOf(model);
    expect(result.finish?.reason).toBe(reason);
  });

  it('waits the retry-after delay after a 429 and then streams the answer', async () => {
    standIn.failNext({ status: 429, retryAfterSeconds: 0.2 });
    const started = Date.now();
    const result = await streamOf(model);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(REPLY);
    expect(chatRequests()).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('gives up with llm_rate_limited after three rate-limited attempts', async () => {
    standIn.failNext({ status: 429, retryAfterSeconds: 0.05, times: 3 });
    const result = await streamOf(model);
    expect(result.error?.code).toBe('llm_rate_limited');
    expect(chatRequests()).toHaveLength(3);
  });

  it('retries after a 503 and streams the answer', async () => {
    standIn.failNext({ status: 503 });
    const result = await streamOf(model);
    expect(result.error).toBeUndefined();
    expect(result.text).toBe(REPLY);
    expect(chatRequests()).toHaveLength(2);
  });

  it.each([
    [400, 'llm_rejected'],
    [401, 'llm_auth'],
    [403, 'llm_auth'],
    [404, 'llm_model_not_found'],
  ])('does not retry a %i and reports it as %s', async (status, code) => {
    standIn.failNext({ status });
    const result = await streamOf(model);
    expect(result.error?.code).toBe(code);
    expect(chatRequests()).toHaveLength(1);
  });

  it('fails with llm_stream_cut after the partial text when the stream breaks before [DONE], without retrying', async () => {
    standIn.cutStreamAfter(3);
    const result = await streamOf(model);
    expect(result.error?.code).toBe('llm_stream_cut');
    expect(result.text.length).toBeGreaterThan(0);
    expect(REPLY.startsWith(result.text)).toBe(true);
    expect(result.text).not.toBe(REPLY);
    expect(chatRequests()).toHaveLength(1);
  });

  it('closes the upstream connection as soon as the reader aborts', async () => {
    standIn.setDelay(100);
    const controller = new AbortController();
    const result = await drain(model.stream(chatRequest({ signal: controller.signal })), () => controller.abort());
    expect(result.error?.code).toBe('aborted');
    await expect(standIn.lastStream?.closed).resolves.toBe('client-disconnected');
  });

  it('passes the start-up check for a served model', async () => {
    await expect(model.verify()).resolves.toBeUndefined();
    expect(standIn.requests.at(-1)?.path).toBe('/v1/models/gpt-4o-mini');
  });

  it('fails the start-up check with llm_auth naming OPENAI_API_KEY when the key is wrong', async () => {
    const wrongKey = createOpenAIChatModel({ apiKey: 'sk-wrong', model: 'gpt-4o-mini', baseUrl: standIn.baseUrl });
    const error = await wrongKey.verify().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'llm_auth', status: 401 });
    expect((error as Error).message).toContain('OPENAI_API_KEY');
    expect((error as Error).message).not.toContain('sk-wrong');
  });

  it('fails the start-up check with llm_model_not_found naming LLM_MODEL for a model the server does not serve', async () => {
    const unknown = createOpenAIChatModel({ apiKey: standIn.apiKey, model: 'llama-9-giant', baseUrl: standIn.baseUrl });
    const error = await unknown.verify().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'llm_model_not_found', status: 404 });
    expect((error as Error).message).toMatch(/llama-9-giant.*LLM_MODEL/);
  });

  it('fails the start-up check with llm_unavailable when nothing answers at the base URL', async () => {
    const nowhere = createOpenAIChatModel({ model: 'gpt-4o-mini', baseUrl: `http://127.0.0.1:${await deadPort()}/v1`, timeoutMs: 2_000 });
    const error = await nowhere.verify().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'llm_unavailable', retryable: true });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('is chosen from configuration, with a default model when none is set', () => {
    const byDefault = createChatModel({ provider: 'openai', model: '', baseUrl: standIn.baseUrl });
    expect(byDefault.provider).toBe('openai');
    expect(byDefault.model).toBe(DEFAULT_OPENAI_MODEL);
  });
});
