import {
  ChatStreamProtocolError,
  upgradeLegacySource,
  chatStreamEventProblem,
  createChatStreamParser,
  encodeChatStreamEvent,
  firstProblem,
  chatRequestSchema,
  isChatStreamEvent,
  isErrorResponseBody,
  isNewerMinorVersion,
  parseChatStreamEvent,
  type ChatStreamEvent,
  type ErrorEvent,
  type HttpErrorCode,
  type StreamErrorCode,
} from './chat-stream.js';

const source = { file: 'intro.md', title: 'Intro', heading: null, heading_path: ['Intro'], url: '/docs/intro', score: 0.5 };

/** Every event a server of this version may send, once. */
const validEvents: ChatStreamEvent[] = [
  { type: 'meta', conversation_id: 'c', message_id: 'm', mode: 'general', persisted: true },
  { type: 'sources', sources: [source], scope: { version: '1.0', version_label: '1.0', locale: 'en' } },
  { type: 'token', content: 'Hello' },
  { type: 'warning', code: 'selection_truncated', message: 'Cut.' },
  { type: 'error', code: 'busy', message: 'Busy.', retryable: true },
  {
    type: 'done',
    sources: [{ ...source, id: 'r1', fallback_locale: 'en' }],
    finish_reason: 'stop',
    usage: { prompt_tokens: 1, completion_tokens: null, total_tokens: 1 },
  },
];

function collect(frames: string, serverVersion?: string): ChatStreamEvent[] {
  const events: ChatStreamEvent[] = [];
  const parser = createChatStreamParser((event) => events.push(event), { serverVersion });
  parser.push(frames);
  parser.end();
  return events;
}

describe('the event type guard', () => {
  it.each(validEvents.map((event) => [event.type, event]))('accepts a well-formed %s event', (_type, event) => {
    expect(chatStreamEventProblem(event)).toBeNull();
    expect(parseChatStreamEvent(JSON.stringify(event))).toEqual(event);
  });

  it('accepts a field a later minor version added to a known event', () => {
    expect(isChatStreamEvent({ type: 'token', content: 'x', language: 'en' })).toBe(true);
  });

  it.each([
    ['an unknown event type', { type: 'thinking', content: 'x' }, /unknown event type "thinking"/],
    ['a token whose content is a number', { type: 'token', content: 42 }, /"content" must be string, not integer/],
    [
      'a meta event without its message id',
      { type: 'meta', conversation_id: 'c', mode: 'general', persisted: true },
      /"message_id" is required/,
    ],
    [
      'a source whose score is a string',
      { type: 'sources', sources: [{ ...source, score: 'high' }] },
      /"sources\[0\].score" must be number/,
    ],
    ['an error code the server never sends', { type: 'error', code: 'overloaded', message: 'x' }, /"code" must be one of/],
    ['a done event with an unknown finish reason', { type: 'done', sources: [], finish_reason: 'tired', usage: null }, /"finish_reason"/],
    ['an array', [], /JSON object with a string "type"/],
  ])('rejects %s, naming the problem', (_name, value, problem) => {
    expect(isChatStreamEvent(value)).toBe(false);
    expect(chatStreamEventProblem(value)).toMatch(problem);
  });

  it('throws ChatStreamProtocolError, not SyntaxError, for a data line that is not JSON', () => {
    expect(() => parseChatStreamEvent('{"type": "tok')).toThrow(ChatStreamProtocolError);
  });
});

describe('the stream parser', () => {
  it('reads frames split anywhere, with any line ending, and skips heartbeats', () => {
    const frames = validEvents.map(encodeChatStreamEvent).join(': ping\n\n').replace(/\n/g, '\r\n');
    const events: ChatStreamEvent[] = [];
    const parser = createChatStreamParser((event) => events.push(event));
    for (let start = 0; start < frames.length; start += 7) parser.push(frames.slice(start, start + 7));
    parser.end();
    expect(events).toEqual(validEvents);
  });

  it('fails on an event of a wrong type from a server of the same version', () => {
    expect(() => collect('data: {"type":"token","content":null}\n\n', '1.0')).toThrow(ChatStreamProtocolError);
    expect(() => collect('data: {"type":"reasoning","text":"x"}\n\n')).toThrow(ChatStreamProtocolError);
  });

  it('skips events it cannot read from a server of a later minor version, and keeps the others', () => {
    const frames = 'data: {"type":"reasoning","text":"x"}\n\ndata: {"type":"token","content":"Hi"}\n\n';
    expect(collect(frames, '2.9')).toEqual([{ type: 'token', content: 'Hi' }]);
  });

  it('reads the sources of a 1.x server, which named heading_path headingPath', () => {
    const { heading_path: headingPath, ...legacy } = source;
    const frames = encodeChatStreamEvent({ type: 'sources', sources: [{ ...legacy, headingPath }] } as unknown as ChatStreamEvent);
    expect(collect(frames, '1.0')).toEqual([{ type: 'sources', sources: [source] }]);
    expect(() => collect(frames, '2.0')).toThrow(/"sources\[0\].heading_path" is required/);
  });

  it('tells a later minor version from the same or another major one', () => {
    expect(isNewerMinorVersion('1.3', '1.2')).toBe(true);
    expect(isNewerMinorVersion('1.2', '1.2')).toBe(false);
    expect(isNewerMinorVersion('2.0', '1.2')).toBe(false);
    expect(isNewerMinorVersion(null, '1.2')).toBe(false);
  });
});

describe('the error codes', () => {
  it('are unions that refuse a code nobody sends, at compile time', () => {
    // @ts-expect-error -- 'overloaded' is no stream error code (the widget used to list it).
    const streamCode: StreamErrorCode = 'overloaded';
    // @ts-expect-error -- 'llm_busy' is no HTTP error code either.
    const httpCode: HttpErrorCode = 'llm_busy';
    // @ts-expect-error -- an error event cannot carry an unknown code.
    const event: ErrorEvent = { type: 'error', code: 'teapot', message: 'x' };
    expect([streamCode, httpCode, event.code]).toHaveLength(3);
  });

  it('check the documented error body, with its details', () => {
    expect(
      isErrorResponseBody({ error: { code: 'invalid_request', message: 'Fix it.', details: ['"mode" must be …'] }, request_id: 'r' }),
    ).toBe(true);
    expect(isErrorResponseBody({ error: { code: 'llm_busy', message: 'x' }, request_id: 'r' })).toBe(false);
    expect(isErrorResponseBody({ error: 'busy' })).toBe(false);
  });
});

describe('the wire casing', () => {
  it('is snake_case in every schema the server and the widget share', async () => {
    const protocol = await import('./chat-stream.js');
    const names: string[] = [];
    const walk = (schema: unknown): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const { properties, ...rest } = schema as { properties?: Record<string, unknown> };
      if (properties) names.push(...Object.keys(properties));
      for (const value of [...Object.values(properties ?? {}), ...Object.values(rest)]) walk(value);
    };
    for (const [name, value] of Object.entries(protocol)) if (name.endsWith('Schema') || name.endsWith('Schemas')) walk(value);
    expect(names.length).toBeGreaterThan(40);
    expect(names.filter((field) => !/^[a-z]+(?:_[a-z]+)*$/.test(field))).toEqual([]);
  });

  it('upgrades a stored 1.x source and leaves a 2.x one alone', () => {
    expect(upgradeLegacySource({ title: 'A', headingPath: ['A'] })).toEqual({ title: 'A', heading_path: ['A'] });
    expect(upgradeLegacySource(source)).toBe(source);
  });
});

describe('the chat request schema', () => {
  it('accepts a request the widget sends and refuses a wrong-typed or unknown field', () => {
    const request = {
      message: 'How?',
      mode: 'general',
      conversation_id: '0b5e2a4c-9d7f-4a0e-8f3b-2c1d6e5a7b90',
      page: { url: '/docs', title: 'Docs' },
      locale: 'fr',
      context: null,
    };
    expect(firstProblem(chatRequestSchema, request)).toBeNull();
    expect(firstProblem(chatRequestSchema, { ...request, mode: 'chatty' })).toMatch(/"mode" must be one of "general", "selection"/);
    expect(firstProblem(chatRequestSchema, { ...request, conversation_id: '42' })).toMatch(/UUID/);
    expect(firstProblem(chatRequestSchema, { ...request, stream: true })).toMatch(/Unknown field "stream"/);
    expect(firstProblem(chatRequestSchema, { ...request, message: '   ' })).toMatch(/must not be empty/);
  });
});
