import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import {
  CHAT_PROTOCOL_HEADER,
  CHAT_PROTOCOL_VERSION,
  createChatStreamParser,
  type ChatJsonResponse,
  type ChatStreamEvent,
  MAX_SELECTION_TOKENS,
  selectionTruncatedMessage,
} from '@docs-chat/core/protocol';
import { boundSelection } from '@docs-chat/core/token-budget';
import { startOpenAIStandIn } from '@docs-chat/stand-ins';
import { OUT_OF_SCOPE_ANSWER } from '../chat/chat-prompt.js';
import { BUSY_MESSAGE } from '../chat/chat-service.js';
import {
  answerText,
  createTestIndex,
  eventually,
  postChat,
  startTestServer,
  type TestIndex,
  type TestServer,
} from '../testing/test-server.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

const fixture = (name: string): Promise<string> =>
  readFile(fileURLToPath(new URL(`../__fixtures__/selections/${name}`, import.meta.url)), 'utf8');

function find<T extends ChatStreamEvent['type']>(events: ChatStreamEvent[], type: T): Extract<ChatStreamEvent, { type: T }> {
  const event = events.find((candidate) => candidate.type === type);
  if (!event) throw new Error(`no ${type} event in ${JSON.stringify(events)}`);
  return event as Extract<ChatStreamEvent, { type: T }>;
}

function generateRequests(server: TestServer) {
  return server.gemini.requests.filter((request) => request.path.includes('GenerateContent') || request.path.includes('generateContent'));
}

let index: TestIndex;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex();
  server = await startTestServer({ index, env: { RATE_LIMIT_MAX: '1000', HEARTBEAT_MS: '100' } });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await index?.remove();
});

beforeEach(() => {
  server.gemini.reset();
});

describe('POST /chat in general mode', () => {
  it('streams meta, then the sources, then tokens, then done with the cited sources', async () => {
    const reply = await postChat(server.url, { message: 'What are the options for configuring the harbor?', mode: 'general' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(reply.headers.get(CHAT_PROTOCOL_HEADER)).toBe(CHAT_PROTOCOL_VERSION);
    const types = reply.events.map((event) => event.type);
    expect(types[0]).toBe('meta');
    expect(types[1]).toBe('sources');
    expect(types.indexOf('token')).toBeGreaterThan(1);
    expect(types.at(-1)).toBe('done');

    const meta = find(reply.events, 'meta');
    expect(meta.mode).toBe('general');
    expect(meta.persisted).toBe(true);
    const sources = find(reply.events, 'sources').sources;
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.length).toBeLessThanOrEqual(5);
    expect(sources.map((source) => source.file)).toContain('guides/configuring-the-harbor.md');
    for (const source of sources) expect(source.url).toMatch(/^\/docs\//);

    const done = find(reply.events, 'done');
    expect(done.finish_reason).toBe('stop');
    expect(done.usage?.total_tokens).toBeGreaterThan(0);
    const answer = answerText(reply.events);
    expect(answer).toMatch(/\[1\]/);
    for (const source of done.sources) expect(sources).toContainEqual(source);
  });

  it('sends the model the numbered documentation and the instruction to cite it', async () => {
    await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    const [request] = generateRequests(server);
    const body = request?.body as { systemInstruction?: { parts?: { text?: string }[] }; generationConfig?: { temperature?: number } };
    const system = body.systemInstruction?.parts?.map((part) => part.text).join('') ?? '';
    expect(body.generationConfig?.temperature).toBe(0.2);
    expect(system).toMatch(/ONLY the numbered documentation/);
    expect(system).toMatch(/\[1\] Installation/);
    expect(system).toContain('npm install tidewater');
  });

  it('keeps only the sources the answer cites in done', async () => {
    server.gemini.setReply('Install it with npm [1].');
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    const sources = find(reply.events, 'sources').sources;
    const done = find(reply.events, 'done');
    expect(sources.length).toBeGreaterThan(1);
    expect(done.sources).toEqual([sources[0]]);
  });

  it('stores the question and the answer so the conversation can be resumed', async () => {
    const reply = await postChat(server.url, { message: 'What is a signal?', mode: 'general' });
    const meta = find(reply.events, 'meta');
    const conversation = await server.store.getConversation(meta.conversation_id);
    expect(conversation?.messages.map((message) => [message.role, message.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(conversation?.messages[0]?.content).toBe('What is a signal?');
    expect(conversation?.messages[1]?.id).toBe(meta.message_id);
    expect(conversation?.messages[1]?.content).toBe(answerText(reply.events));
  });

  it('uses the recent conversation to understand and answer a follow-up', async () => {
    const first = await postChat(server.url, { message: 'How do I write a lock?', mode: 'general' });
    const { conversation_id: conversationId } = find(first.events, 'meta');
    server.gemini.reset();
    const followUp = 'And can they do asynchronous work?';
    const second = await postChat(server.url, { message: followUp, mode: 'general', conversation_id: conversationId });
    expect(find(second.events, 'meta').conversation_id).toBe(conversationId);

    const [request] = generateRequests(server);
    const contents = (request?.body as { contents: { role: string; parts: { text: string }[] }[] }).contents;
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[0]?.parts[0]?.text).toBe('How do I write a lock?');
    expect(contents[1]?.parts[0]?.text).toBe(answerText(first.events));
    expect(contents[2]?.parts[0]?.text).toBe(followUp);

    const sources = find(second.events, 'sources').sources;
    expect(sources[0]?.file).toBe('guides/locks.mdx');
  });

  it('sends at most the last three question and answer pairs', async () => {
    let conversationId: string | undefined;
    for (const message of ['What is a harbor?', 'What is a signal?', 'What is a current?', 'What is a lock?']) {
      const reply = await postChat(server.url, {
        message,
        mode: 'general',
        ...(conversationId ? { conversation_id: conversationId } : {}),
      });
      conversationId = find(reply.events, 'meta').conversation_id;
    }
    server.gemini.reset();
    await postChat(server.url, { message: 'How do I install it?', mode: 'general', conversation_id: conversationId });
    const contents = (generateRequests(server)[0]?.body as { contents: { parts: { text: string }[] }[] }).contents;
    expect(contents).toHaveLength(7);
    expect(contents[0]?.parts[0]?.text).toBe('What is a signal?');
  });

  it('answers a question the docs do not cover with the fixed sentence and without calling the model', async () => {
    const reply = await postChat(server.url, { message: 'What is the best recipe for sourdough bread with rye flour?', mode: 'general' });
    expect(answerText(reply.events)).toBe(OUT_OF_SCOPE_ANSWER);
    // It speaks of the site's docs (a "book" was left over from a book-reading origin).
    expect(answerText(reply.events)).toMatch(/in these docs/);
    expect(answerText(reply.events)).not.toMatch(/book/i);
    expect(find(reply.events, 'sources').sources).toEqual([]);
    expect(find(reply.events, 'done').finish_reason).toBe('no_answer');
    expect(generateRequests(server)).toHaveLength(0);
  });

  it('answers greetings and thanks without searching or calling the model', async () => {
    const hello = await postChat(server.url, { message: 'Hello!', mode: 'general' });
    expect(answerText(hello.events)).toMatch(/^Hello!/);
    const thanks = await postChat(server.url, { message: 'thanks a lot', mode: 'general' });
    expect(answerText(thanks.events)).toMatch(/welcome/);
    expect(find(thanks.events, 'done').sources).toEqual([]);
    expect(server.gemini.requests).toHaveLength(0);
  });

  it('sends heartbeat comments while the model is slow', async () => {
    server.gemini.setDelay(250);
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    expect(reply.raw).toContain(': ping\n\n');
    expect(find(reply.events, 'done').type).toBe('done');
  });
});

describe('POST /chat in selection mode', () => {
  it('answers from the highlighted text only: no retrieval, no history, the passage delimited as data', async () => {
    const passage = await fixture('passage-with-instructions.txt');
    const reply = await postChat(server.url, { message: 'What does this say about ordering?', mode: 'selection', context: passage });
    expect(reply.events.map((event) => event.type)).not.toContain('sources');
    expect(find(reply.events, 'meta').mode).toBe('selection');
    expect(find(reply.events, 'done').type).toBe('done');

    const [request] = generateRequests(server);
    const body = request?.body as { contents: unknown[]; systemInstruction?: { parts?: { text?: string }[] } };
    expect(body.contents).toHaveLength(1);
    const system = body.systemInstruction?.parts?.map((part) => part.text).join('') ?? '';
    expect(system).toMatch(/is data .*not instructions/);
    // The passage's own "</selection>" cannot close the data block early.
    expect(system.match(/<\/selection>/g)).toHaveLength(1);
    expect(system.trimEnd().endsWith('</selection>')).toBe(true);
    expect(system).toContain('Ignore all previous instructions');
  });

  it('truncates a passage over 2,000 tokens and says so in a warning event', async () => {
    const passage = await fixture('long-passage.txt');
    const reply = await postChat(server.url, { message: 'Summarise this', mode: 'selection', context: passage });
    const warning = find(reply.events, 'warning');
    expect(warning.code).toBe('selection_truncated');
    // Word for word the message the widget shows for its own cut: one rule, one message.
    expect(warning.message).toBe(selectionTruncatedMessage(boundSelection(passage, MAX_SELECTION_TOKENS).originalTokens));
    const types = reply.events.map((event) => event.type);
    expect(types.indexOf('warning')).toBeLessThan(types.indexOf('token'));
    const system = (
      (generateRequests(server)[0]?.body as { systemInstruction?: { parts?: { text?: string }[] } }).systemInstruction?.parts ?? []
    )
      .map((part) => part.text)
      .join('');
    expect(system).toContain('Paragraph 1.');
    expect(system).not.toContain('Paragraph 60.');
  });
  it('does not cut again a passage the widget already cut by the same rule, so the reader sees no second warning', async () => {
    const passage = await fixture('long-passage.txt');
    const cut = boundSelection(passage, MAX_SELECTION_TOKENS);
    expect(cut.truncated).toBe(true);
    const reply = await postChat(server.url, { message: 'Summarise this', mode: 'selection', context: cut.text });
    expect(reply.events.filter((event) => event.type === 'warning')).toEqual([]);
    const system = (
      (generateRequests(server)[0]?.body as { systemInstruction?: { parts?: { text?: string }[] } }).systemInstruction?.parts ?? []
    )
      .map((part) => part.text)
      .join('');
    expect(system).toContain(cut.text.slice(-200));
  });
});

describe('POST /chat request errors', () => {
  it.each([
    ['an empty object', {}, /"message" is required\. "mode" is required\./],
    ['a message that is a number', { message: 42, mode: 'general' }, /"message" must not be empty: send the question as a string/],
    [
      'a page that is a string',
      { message: 'hi', mode: 'general', page: '/docs/intro' },
      /"page" must be an object \{"url": string, "title": string\}/,
    ],
    [
      'a page title that is a number',
      { message: 'hi', mode: 'general', page: { url: '/docs', title: 7 } },
      /"page\.title" must be a string\./,
    ],
    ['a locale that is a list', { message: 'hi', mode: 'general', locale: ['fr'] }, /"locale" must be a name like "2\.0"/],
    ['an empty message', { message: '  ', mode: 'general' }, /must not be empty/],
    ['a message over 4,000 characters', { message: 'x'.repeat(4001), mode: 'general' }, /limit is 4000/],
    ['an unknown mode', { message: 'hi', mode: 'chatty' }, /"mode" must be "general" or "selection"/],
    [
      'selection mode without the highlighted text',
      { message: 'explain', mode: 'selection' },
      /"context" is required in selection mode: send the highlighted text/,
    ],
    ['a conversation id that is not a UUID', { message: 'hi', mode: 'general', conversation_id: '42' }, /UUID/],
    ['an unknown field', { message: 'hi', mode: 'general', stream: true }, /Unknown field "stream"/],
  ])('answers %s with 400 and a message that says what is wrong', async (_name, body, expected) => {
    const reply = await postChat(server.url, body);
    expect(reply.status).toBe(400);
    const error = (reply.json as { error: { code: string; details: string[] } }).error;
    expect(error.code).toBe('invalid_request');
    expect(error.details.join(' ')).toMatch(expected);
  });

  it('refuses a wrong-typed field in the documented shape, with the request id and the protocol version', async () => {
    const reply = await postChat(server.url, { message: 'hi', mode: 'general', conversation_id: 42, extra: 1 });
    expect(reply.status).toBe(400);
    expect(reply.headers.get(CHAT_PROTOCOL_HEADER)).toBe(CHAT_PROTOCOL_VERSION);
    const body = reply.json as { error: { code: string; message: string; details: string[] }; request_id: string };
    expect(body.request_id).toBe(reply.headers.get('x-request-id'));
    expect(body.error).toEqual({
      code: 'invalid_request',
      message: 'The request is not valid; see "details" for what to change.',
      details: [
        'Unknown field "extra": allowed fields are message, mode, context, conversation_id, page, version, docs_instance, locale.',
        '"conversation_id" must be a UUID taken from an earlier answer.',
      ],
    });
  });

  it('answers a body that is not JSON with 400 invalid_json', async () => {
    const reply = await postChat(server.url, '{"message": ');
    expect(reply.status).toBe(400);
    expect((reply.json as { error: { code: string } }).error.code).toBe('invalid_json');
  });

  it('answers a body in another format, plain text included, with 415 saying to send JSON', async () => {
    const xml = await postChat(server.url, '<message>hi</message>', { headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(415);
    expect((xml.json as { error: { message: string } }).error.message).toMatch(/application\/json/);
    const text = await postChat(server.url, 'message=hi', { headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect((text.json as { error: { code: string } }).error.code).toBe('unsupported_media_type');
  });

  it('answers an unknown conversation id with 404 before streaming', async () => {
    const reply = await postChat(server.url, {
      message: 'hi there, what is a lock?',
      mode: 'general',
      conversation_id: '0b7f5c7e-1111-4a2b-9c3d-123456789abc',
    });
    expect(reply.status).toBe(404);
    expect((reply.json as { error: { code: string } }).error.code).toBe('conversation_not_found');
  });

  it('refuses a body over BODY_LIMIT_BYTES with 413', async () => {
    const reply = await postChat(server.url, { message: 'explain', mode: 'selection', context: 'y'.repeat(600 * 1024) });
    expect(reply.status).toBe(413);
    expect((reply.json as { error: { message: string } }).error.message).toMatch(/BODY_LIMIT_BYTES/);
  });
});

describe('POST /chat when the model fails', () => {
  it('retries a model that answers 503 and then streams the answer', async () => {
    server.gemini.failNext({ status: 503, times: 2 });
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    expect(find(reply.events, 'done').type).toBe('done');
    expect(generateRequests(server)).toHaveLength(3);
    const retries = server.logs.entries().filter((entry) => entry.msg === 'the chat model failed; retrying');
    expect(retries.slice(-2).map((entry) => [entry.attempt, entry.status])).toEqual([
      [1, 503],
      [2, 503],
    ]);
  });

  it('tells the reader the service is busy when the model stays rate limited', async () => {
    server.gemini.failNext({ status: 429, retryDelay: '0.05s', times: 10 });
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    const error = find(reply.events, 'error');
    expect(error).toMatchObject({ code: 'busy', message: BUSY_MESSAGE, retryable: true });
    expect(reply.events.at(-1)?.type).toBe('error');
    expect(reply.events.map((event) => event.type)).not.toContain('done');
    expect(generateRequests(server)).toHaveLength(3);
  });

  it('sends an error event and stores the partial answer when the model stream is cut', async () => {
    server.gemini.cutStreamAfter(2);
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    const error = find(reply.events, 'error');
    expect(error.code).toBe('answer_interrupted');
    expect(error.message).not.toMatch(/at .*\.ts|stack|key/i);
    const partial = answerText(reply.events);
    expect(partial.length).toBeGreaterThan(0);
    const meta = find(reply.events, 'meta');
    const stored = (await server.store.getConversation(meta.conversation_id))?.messages[1];
    expect(stored).toMatchObject({ status: 'error', content: partial, finishReason: 'error' });
  });

  it('tells the reader when the model refuses a blocked prompt', async () => {
    server.gemini.blockPrompt('SAFETY');
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    expect(find(reply.events, 'error').code).toBe('answer_blocked');
    server.gemini.blockPrompt(null);
  });
});

describe('POST /chat when the reader leaves', () => {
  it('aborts the model request at once and stores the partial answer as interrupted', async () => {
    server.gemini.setDelay(150);
    const controller = new AbortController();
    const response = await fetch(`${server.url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'How do I install Tidewater?', mode: 'general' }),
      signal: controller.signal,
    });
    const events: ChatStreamEvent[] = [];
    const parser = createChatStreamParser((event) => events.push(event));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    while (!events.some((event) => event.type === 'token')) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
    }
    controller.abort();
    const upstream = server.gemini.lastStream;
    expect(upstream).toBeDefined();
    await expect(upstream!.closed).resolves.toBe('client-disconnected');

    const meta = find(events, 'meta');
    await eventually(async () => (await server.store.getConversation(meta.conversation_id))?.messages[1]?.status === 'interrupted');
    const stored = (await server.store.getConversation(meta.conversation_id))?.messages[1];
    expect(stored?.content.startsWith(answerText(events))).toBe(true);
    expect(stored?.content.length).toBeGreaterThan(0);
    expect(stored?.finishReason).toBe('interrupted');
  });
});

describe('POST /chat for scripts that ask for JSON', () => {
  it('returns the whole answer as one JSON object', async () => {
    const reply = await postChat(
      server.url,
      { message: 'What are the options for configuring the harbor?', mode: 'general' },
      { headers: { accept: 'application/json' } },
    );
    expect(reply.status).toBe(200);
    const body = reply.json as ChatJsonResponse;
    expect(body.answer).toMatch(/\[1\]/);
    expect(body.used_retrieval).toBe(true);
    expect(body.sources.length).toBeGreaterThan(0);
    expect(body.finish_reason).toBe('stop');
    const stored = await server.store.getConversation(body.conversation_id);
    expect(stored?.messages.at(-1)?.id).toBe(body.message_id);
  });

  it('reports that a greeting used no retrieval', async () => {
    const reply = await postChat(server.url, { message: 'hi', mode: 'general' }, { headers: { accept: 'application/json' } });
    expect((reply.json as ChatJsonResponse).used_retrieval).toBe(false);
  });

  it('answers 503 with the busy message and a retry-after when the model stays rate limited', async () => {
    server.gemini.failNext({ status: 429, retryDelay: '0.05s', times: 10 });
    const reply = await postChat(
      server.url,
      { message: 'How do I install Tidewater?', mode: 'general' },
      { headers: { accept: 'application/json' } },
    );
    expect(reply.status).toBe(503);
    expect((reply.json as { error: { message: string } }).error.message).toBe(BUSY_MESSAGE);
    expect(reply.headers.get('retry-after')).toBe('1');
  });
});

describe('POST /chat with an OpenAI-compatible model', () => {
  it('streams the answer from the server named by LLM_BASE_URL', async () => {
    const openai = await startOpenAIStandIn();
    const other = await startTestServer({
      index,
      env: { LLM_PROVIDER: 'openai', LLM_BASE_URL: openai.baseUrl, OPENAI_API_KEY: openai.apiKey, LLM_MODEL: 'gpt-4o-mini' },
    });
    try {
      const reply = await postChat(other.url, { message: 'How do I install Tidewater?', mode: 'general' });
      expect(answerText(reply.events)).toMatch(/\[1\]/);
      expect(reply.events.at(-1)?.type).toBe('done');
      expect(openai.requests.some((request) => request.path.endsWith('/chat/completions'))).toBe(true);
      expect(other.gemini.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
    } finally {
      await other.close();
      await openai.close();
    }
  });
});
