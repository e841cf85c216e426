import type { ChatRequest, ChatStreamEvent, ErrorEvent, MetaEvent } from '@docs-chat/core/protocol';
import { startGeminiStandIn, type GeminiStandIn } from '@docs-chat/stand-ins';
import { pino } from 'pino';
import type { OpenedRetrieval } from '@docs-chat/core';
import { assembleContext, countTokens, DocsChatError, loadCoreConfig, openRetrieval } from '../core-api.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import { createPostgresConversationStore } from '../conversations/postgres-conversation-store.js';
import { createChatModel } from '../llm/create-chat-model.js';
import { createTestIndex, LogCapture, type TestIndex } from '../testing/test-server.js';
import { BUSY_LOG_INTERVAL_MS, BUSY_MESSAGE, ChatService, modelErrorEvent, ServerShutdownError } from './chat-service.js';
import { ConversationGateway } from './conversation-gateway.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

let index: TestIndex;
let gemini: GeminiStandIn;
let retrieval: OpenedRetrieval;
let store: ConversationStore;
const logs = new LogCapture();
const logger = pino({ level: 'info' }, logs);

function serviceWith(options: { store?: ConversationStore; retriever?: OpenedRetrieval['retriever'] } = {}): ChatService {
  return new ChatService({
    retrieval: { retriever: options.retriever ?? retrieval.retriever },
    assembleContext,
    countTokens,
    chatModel: createChatModel({ provider: 'gemini', model: 'gemini-3.8-flash', apiKey: gemini.apiKey, baseUrl: gemini.url }),
    conversations: new ConversationGateway(options.store ?? store, logger, 1000),
  });
}

async function collect(service: ChatService, request: ChatRequest, signal = new AbortController().signal): Promise<ChatStreamEvent[]> {
  const started = await service.start(request, signal, logger);
  if (started.kind !== 'stream') throw new Error('expected a stream');
  const events: ChatStreamEvent[] = [];
  for await (const event of started.events) events.push(event);
  return events;
}

beforeAll(async () => {
  index = await createTestIndex();
  gemini = await startGeminiStandIn();
  retrieval = await openRetrieval(loadCoreConfig(index.env));
  store = await index.sharedStore();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await retrieval?.close();
  await gemini?.close();
  await index?.remove();
});

beforeEach(() => gemini.reset());

describe('the chat orchestration', () => {
  it('yields meta, sources, tokens and done for a general question without any HTTP around it', async () => {
    const events = await collect(serviceWith(), { message: 'How do I install Tidewater?', mode: 'general' });
    const types = events.map((event) => event.type);
    expect(types.slice(0, 2)).toEqual(['meta', 'sources']);
    expect(types.at(-1)).toBe('done');
    expect(types.filter((type) => type === 'token').length).toBeGreaterThan(1);
  });

  it('tells the reader the index cannot be searched when retrieval fails, and stores the failed answer', async () => {
    const broken = await openRetrieval(loadCoreConfig(index.env));
    await broken.close();
    const events = await collect(serviceWith({ retriever: broken.retriever }), { message: 'How do I install Tidewater?', mode: 'general' });
    expect(events.map((event) => event.type)).toEqual(['meta', 'error']);
    expect(events[1]).toMatchObject({ type: 'error', code: 'search_unavailable', retryable: true });
    const meta = events[0] as MetaEvent;
    const stored = await store.getConversation(meta.conversation_id);
    expect(stored?.messages.map((message) => message.status)).toEqual(['complete', 'error']);
    expect(gemini.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
  });

  it('refuses questions as busy while the question encoder is saturated, storing nothing, with one warning per interval and no error lines', async () => {
    const busyRetriever: OpenedRetrieval['retriever'] = {
      ...retrieval.retriever,
      search: () =>
        Promise.reject(
          new DocsChatError('service_busy', 'The neural embedder is busy: 64 tasks are already waiting.', { retryAfterMs: 2500 }),
        ),
    };
    let clock = 1_000_000;
    const service = new ChatService({
      retrieval: { retriever: busyRetriever },
      assembleContext,
      countTokens,
      chatModel: createChatModel({ provider: 'gemini', model: 'gemini-3.8-flash', apiKey: gemini.apiKey, baseUrl: gemini.url }),
      conversations: new ConversationGateway(store, logger, 1000),
      now: () => clock,
    });
    const busyLines = () =>
      logs.entries().filter((entry) => String(entry.msg).startsWith('questions refused as busy') || entry.msg === 'retrieval failed');
    const before = busyLines().length;
    // A follow-up in a conversation that has one answered pair.
    const opening = await collect(serviceWith(), { message: 'How do I install Tidewater?', mode: 'general' });
    const conversationId = (opening[0] as MetaEvent).conversation_id;
    const ask = () =>
      service.start(
        { message: 'And how do I upgrade it?', mode: 'general', conversation_id: conversationId },
        new AbortController().signal,
        logger,
      );

    expect(await ask()).toEqual({ kind: 'busy', message: BUSY_MESSAGE, retryAfterMs: 2500 });
    for (let question = 0; question < 20; question += 1) {
      clock += 100;
      expect((await ask()).kind).toBe('busy');
    }
    clock += BUSY_LOG_INTERVAL_MS;
    await ask();

    // A resumed conversation shows no unanswered question for any of the 22 refusals.
    const stored = await store.getConversation(conversationId);
    expect(stored?.messages.map((message) => message.content.slice(0, 27))).toEqual(['How do I install Tidewater?', expect.any(String)]);
    const lines = busyLines().slice(before);
    expect(lines.map((line) => [line.level, line.refused])).toEqual([
      [40, 1],
      [40, 21],
    ]);
    expect(lines[1]?.msg).toMatch(/give the server more CPU or run more server processes \(WORKERS\)/);
    expect(gemini.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
  });

  it('ends with a shutting_down error and stores the partial answer when the server stops mid-answer', async () => {
    gemini.setDelay(100);
    const controller = new AbortController();
    const service = serviceWith();
    const started = await service.start({ message: 'How do I install Tidewater?', mode: 'general' }, controller.signal, logger);
    if (started.kind !== 'stream') throw new Error('expected a stream');
    const events: ChatStreamEvent[] = [];
    for await (const event of started.events) {
      events.push(event);
      if (event.type === 'token') controller.abort(new ServerShutdownError());
    }
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'shutting_down', retryable: true });
    const stored = (await store.getConversation(started.conversationId))?.messages[1];
    expect(stored).toMatchObject({ status: 'interrupted', finishReason: 'interrupted' });
    expect(stored?.content.length).toBeGreaterThan(0);
  });

  it('answers a follow-up unsaved, with a warning, when the database is down for an existing conversation', async () => {
    const down = createPostgresConversationStore({ databaseUrl: 'postgres://postgres@127.0.0.1:1/test', connectTimeoutSeconds: 1 });
    try {
      const events = await collect(serviceWith({ store: down }), {
        message: 'And how do I configure it?',
        mode: 'general',
        conversation_id: '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b',
      });
      expect(events[0]).toMatchObject({ type: 'meta', persisted: false, conversation_id: '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b' });
      expect(events[1]).toMatchObject({ type: 'warning', code: 'conversation_not_saved' });
      expect(events.at(-1)?.type).toBe('done');
      expect(logs.text).toMatch(/conversation store unavailable/);
      expect(logs.text).not.toContain('And how do I configure it?');
    } finally {
      await down.close();
    }
  });

  it('reports that an unknown conversation id is unknown before streaming anything', async () => {
    const started = await serviceWith().start(
      { message: 'hi', mode: 'general', conversation_id: '6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b' },
      new AbortController().signal,
      logger,
    );
    expect(started).toEqual({ kind: 'unknown_conversation' });
  });
});

describe('the error events sent for model failures', () => {
  it('never pass on the provider message, and say whether trying again may help', async () => {
    const { LlmError } = await import('../llm/chat-model.js');
    const cases: [InstanceType<typeof LlmError>['code'], string, boolean][] = [
      ['llm_rate_limited', 'busy', true],
      ['llm_unavailable', 'llm_unavailable', true],
      ['llm_stream_cut', 'answer_interrupted', true],
      ['llm_blocked', 'answer_blocked', false],
      ['llm_auth', 'llm_failed', false],
      ['llm_model_not_found', 'llm_failed', false],
    ];
    for (const [code, expected, retryable] of cases) {
      const event: ErrorEvent = modelErrorEvent(new LlmError(code, 'provider said: key AIza-secret is bad'));
      expect(event).toMatchObject({ code: expected, retryable });
      expect(event.message).not.toContain('AIza');
    }
    expect(modelErrorEvent(new TypeError('x is undefined'))).toMatchObject({ code: 'internal_error', retryable: true });
  });
});
