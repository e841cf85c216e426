/**
 * The chat stream protocol, shared by the server and the widget.
 *
 * `POST /chat` answers `text/event-stream`; each event is one `data:` line
 * holding one JSON object, followed by a blank line. Comment lines (`: ping`)
 * are heartbeats and carry nothing. The protocol version travels in the
 * `x-docs-chat-protocol` response header; a client that sees a different major
 * version should tell the reader to reload.
 *
 * This package has no dependencies on purpose: it runs in the browser bundle.
 */
import { firstProblem, Wire, type Schema, type Static } from './wire-schema.js';

export { firstProblem, Wire, type OptionalSchema, type Schema, type Static } from './wire-schema.js';
export * from './search-api.js';

/**
 * 2.0: every field on the wire is snake_case (`headingPath` became `heading_path`). Clients of 2.x read
 * 1.x streams too (see `upgradeLegacyEvent`); a 1.x client refuses a 2.x server and asks for a reload.
 */
export const CHAT_PROTOCOL_VERSION = '2.0';
/** The major versions this package's parser reads. */
export const READABLE_PROTOCOL_MAJORS: readonly string[] = ['1', '2'];
export const CHAT_PROTOCOL_HEADER = 'x-docs-chat-protocol';
export const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';
export const SSE_HEARTBEAT = ': ping\n\n';

export const MAX_MESSAGE_CHARS = 4000;
export const MAX_CONTEXT_CHARS = 100_000;
export const MAX_SELECTION_TOKENS = 2000;

/**
 * The one message for a highlighted passage cut to the budget: the server's
 * `selection_truncated` warning, and the widget's banner (as its default text).
 */
export function selectionTruncatedMessage(originalTokens: number, maxTokens: number = MAX_SELECTION_TOKENS): string {
  return `The selection is about ${originalTokens} tokens; only the first ${maxTokens} are used. Select a shorter passage to ask about all of it.`;
}

/** A docs version, instance or locale name as Docusaurus allows them in folder names and URLs. */
export const SCOPE_VALUE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const CHAT_MODES = ['general', 'selection'] as const;
export type ChatMode = (typeof CHAT_MODES)[number];

export const FINISH_REASONS = ['stop', 'length', 'safety', 'interrupted', 'error', 'no_answer', 'other'] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/** The codes of the stream's `error` event: the server sends no other, and the widget knows each. */
export const STREAM_ERROR_CODES = [
  'busy',
  'llm_unavailable',
  'answer_interrupted',
  'answer_blocked',
  'llm_failed',
  'search_unavailable',
  'shutting_down',
  'internal_error',
] as const;
export type StreamErrorCode = (typeof STREAM_ERROR_CODES)[number];

/** The codes of the stream's `warning` event. */
export const STREAM_WARNING_CODES = ['selection_truncated', 'conversation_not_saved', 'other_version'] as const;
export type StreamWarningCode = (typeof STREAM_WARNING_CODES)[number];

/** The `error.code` of every HTTP error response (the server's table in http-errors.ts has one row per code). */
export const HTTP_ERROR_CODES = [
  'invalid_request',
  'malformed_request',
  'invalid_json',
  'unauthorized',
  'origin_not_allowed',
  'route_not_found',
  'conversation_not_found',
  'share_not_found',
  'message_not_found',
  'signature_invalid',
  'sync_not_configured',
  'ingest_running',
  'request_timeout',
  'payload_too_large',
  'uri_too_long',
  'headers_too_large',
  'unsupported_media_type',
  'rate_limited',
  'ingest_failed',
  'internal_error',
  'llm_failed',
  'service_busy',
  'search_unavailable',
  'conversation_store_unavailable',
  'shutting_down',
] as const;
export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

const scopeName = (): Schema<string> =>
  Wire.string({ pattern: SCOPE_VALUE.source, problem: 'must be a name like "2.0", "current" or "fr" (letters, digits, ".", "_", "-"; at most 64 characters).' });

/** Body of `POST /chat`; the server validates it with this schema before anything streams. */
export const chatRequestSchema = {
  ...Wire.object(
    {
      // JSON Schema counts characters (code points), as readers do; a reader's 4,000 characters always fit.
      message: Wire.string({ maxLength: MAX_MESSAGE_CHARS, pattern: '\\S', problem: `must not be empty: send the question as a string of at most ${MAX_MESSAGE_CHARS} characters.` }),
      mode: Wire.oneOf(CHAT_MODES),
      /** The highlighted text; required in selection mode. */
      context: Wire.optional(Wire.nullable(Wire.string({ maxLength: MAX_CONTEXT_CHARS }))),
      /** A UUID from an earlier answer's `meta` event, to continue that conversation. */
      conversation_id: Wire.optional(Wire.nullable(Wire.string({ format: 'uuid', problem: 'must be a UUID taken from an earlier answer.' }))),
      /** The page the reader is on. */
      page: Wire.optional(
        Wire.nullable(Wire.object({ url: Wire.string({ maxLength: 2048 }), title: Wire.string({ maxLength: 500 }) }), {
          problem: 'must be an object {"url": string, "title": string}.',
        }),
      ),
      /**
       * The docs version the reader is on, as Docusaurus names it (`current`, `2.0`). On an index of a whole
       * site, general questions are answered from this version (the last one when unset); ignored otherwise.
       */
      version: Wire.optional(Wire.nullable(scopeName())),
      /** The docs plugin instance of that version (`default` when unset). */
      docs_instance: Wire.optional(Wire.nullable(scopeName())),
      /** The reader's locale (`i18n.currentLocale`); answers cite pages of this locale (the default one when unset). */
      locale: Wire.optional(Wire.nullable(scopeName())),
    },
    { closed: true },
  ),
  // Selection mode answers from the highlighted text only, so it must be there (checked by the server's Ajv).
  if: { properties: { mode: { const: 'selection' } }, required: ['mode'] },
  then: {
    required: ['context'],
    problem: 'in selection mode: send the highlighted text as "context".',
    properties: { context: { type: 'string', pattern: '\\S', problem: 'must hold the highlighted text in selection mode.' } },
  },
};
/** A `POST /chat` body as the schema accepts it (optional fields may also be `null`). */
export type ChatRequestBody = Static<typeof chatRequestSchema>;
/** A `POST /chat` body with its `null` fields left out: what the widget sends and the server works with. */
export type ChatRequest = { [K in keyof ChatRequestBody]: Exclude<ChatRequestBody[K], null> };
export type ChatPage = NonNullable<ChatRequest['page']>;

/** Leaves out the fields a client sent as `null` (the schema accepts them as "not set"). */
export function chatRequestFrom(body: ChatRequestBody): ChatRequest {
  const request: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (value !== null) request[key] = value;
  return request as ChatRequest;
}

/** A cited section of the docs. `url` already carries the heading anchor. */
export const sourceRefSchema = Wire.object({
  file: Wire.string(),
  title: Wire.string(),
  heading: Wire.nullable(Wire.string()),
  /** The headings from the page title down to this section. */
  heading_path: Wire.array(Wire.string()),
  /** Empty for a JSON record that has no URL; `id` then names the record. */
  url: Wire.string(),
  score: Wire.number(),
  /** The record's id, sent only when `url` is empty (JSON records source), so the citation can name it. */
  id: Wire.optional(Wire.string()),
  /** Docs version of the page, on an index of a whole site (absent for the blog). */
  version: Wire.optional(Wire.string()),
  /** Locale of the page's URL, on an index of a whole site. */
  locale: Wire.optional(Wire.string()),
  /** Set when the page is not translated into `locale`: its text is in this locale (the site's default). */
  fallback_locale: Wire.optional(Wire.string()),
});
export type SourceRef = Static<typeof sourceRefSchema>;

export const tokenUsageSchema = Wire.object({
  prompt_tokens: Wire.nullable(Wire.number()),
  completion_tokens: Wire.nullable(Wire.number()),
  total_tokens: Wire.nullable(Wire.number()),
});
export type TokenUsage = Static<typeof tokenUsageSchema>;

/** The version and locale a general answer was searched in. */
export const answerScopeSchema = Wire.object({
  version: Wire.string(),
  /** The version's label as the site shows it (`Next` for the current docs). */
  version_label: Wire.string(),
  locale: Wire.string(),
  /** Set when the question named another version than the reader's: the reader's version, not the one answered from. */
  reader_version: Wire.optional(Wire.string()),
});
export type AnswerScope = Static<typeof answerScopeSchema>;

/** Every event of the stream, by its `type`: the one definition the server's types and the widget's guard come from. */
export const chatStreamEventSchemas = {
  meta: Wire.object({
    type: Wire.literal('meta'),
    conversation_id: Wire.string(),
    message_id: Wire.string(),
    mode: Wire.oneOf(CHAT_MODES),
    /** False when the conversation store is down: the answer streams but is not saved. */
    persisted: Wire.boolean(),
  }),
  sources: Wire.object({
    type: Wire.literal('sources'),
    sources: Wire.array(sourceRefSchema),
    /** On an index of a whole site: the version and locale the sources come from. */
    scope: Wire.optional(answerScopeSchema),
  }),
  token: Wire.object({ type: Wire.literal('token'), content: Wire.string() }),
  warning: Wire.object({ type: Wire.literal('warning'), code: Wire.oneOf(STREAM_WARNING_CODES), message: Wire.string() }),
  error: Wire.object({
    type: Wire.literal('error'),
    code: Wire.oneOf(STREAM_ERROR_CODES),
    message: Wire.string(),
    /** True when trying again later may succeed (busy, rate limited, upstream cut). */
    retryable: Wire.optional(Wire.boolean()),
  }),
  done: Wire.object({
    type: Wire.literal('done'),
    sources: Wire.array(sourceRefSchema),
    finish_reason: Wire.oneOf(FINISH_REASONS),
    usage: Wire.nullable(tokenUsageSchema),
  }),
};

export type MetaEvent = Static<typeof chatStreamEventSchemas.meta>;
export type SourcesEvent = Static<typeof chatStreamEventSchemas.sources>;
export type TokenEvent = Static<typeof chatStreamEventSchemas.token>;
export type WarningEvent = Static<typeof chatStreamEventSchemas.warning>;
export type ErrorEvent = Static<typeof chatStreamEventSchemas.error>;
export type DoneEvent = Static<typeof chatStreamEventSchemas.done>;
export type ChatStreamEvent = MetaEvent | SourcesEvent | TokenEvent | WarningEvent | ErrorEvent | DoneEvent;
export type ChatStreamEventType = ChatStreamEvent['type'];

/** Non-streaming answer, for clients that send `Accept: application/json`. */
export const chatJsonResponseSchema = Wire.object({
  conversation_id: Wire.string(),
  message_id: Wire.string(),
  answer: Wire.string(),
  sources: Wire.array(sourceRefSchema),
  used_retrieval: Wire.boolean(),
  finish_reason: Wire.oneOf(FINISH_REASONS),
  persisted: Wire.boolean(),
  /** On an index of a whole site: the version and locale the answer was searched in (as in the `sources` event). */
  scope: Wire.optional(answerScopeSchema),
  /** The stream's `warning` events, in order (e.g. `other_version`); empty when there were none. */
  warnings: Wire.array(Wire.object({ code: Wire.oneOf(STREAM_WARNING_CODES), message: Wire.string() })),
});
export type ChatJsonResponse = Static<typeof chatJsonResponseSchema>;

/** The body of every HTTP error response. */
export const errorResponseSchema = Wire.object({
  error: Wire.object({
    code: Wire.oneOf(HTTP_ERROR_CODES),
    message: Wire.string(),
    /** Field-level problems of a 400: at most ten, then one line with the count of the others. */
    details: Wire.optional(Wire.array(Wire.string())),
  }),
  request_id: Wire.string(),
});
export type ErrorResponseBody = Static<typeof errorResponseSchema>;

/** True for a body in the documented error shape with a code this version knows. */
export function isErrorResponseBody(value: unknown): value is ErrorResponseBody {
  return firstProblem(errorResponseSchema, value) === null;
}

/** Serialises one event as an SSE frame. */
export function encodeChatStreamEvent(event: ChatStreamEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}


/** The sentence an answer opens with when it comes from another version than the reader's. */
export function otherVersionNote(versionLabel: string, readerVersionLabel: string): string {
  return `This answer comes from the docs for version ${versionLabel}, not the version you are reading (${readerVersionLabel}).`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A stream that breaks the protocol: a `data:` line that is not JSON, or an event this version cannot
 * read (unknown type, missing field, wrong field type, unknown code). Clients tell it from a lost
 * connection by its class, never by its message.
 */
export class ChatStreamProtocolError extends Error {
  /** The start of the offending `data:` line. */
  readonly data: string;

  constructor(problem: string, data: string) {
    super(`The server sent a malformed chat stream: ${problem}.`);
    this.name = 'ChatStreamProtocolError';
    this.data = data.slice(0, 200);
  }
}

/** Why `value` is not an event of this protocol version, or null when it is one. */
export function chatStreamEventProblem(value: unknown): string | null {
  if (!isRecord(value) || typeof value.type !== 'string') return 'an event must be a JSON object with a string "type"';
  if (!Object.hasOwn(chatStreamEventSchemas, value.type)) return `unknown event type "${value.type.slice(0, 40)}"`;
  return firstProblem(chatStreamEventSchemas[value.type as ChatStreamEventType], value);
}

/** The widget's type guard: true only for an event this protocol version defines, every field of the right type. */
export function isChatStreamEvent(value: unknown): value is ChatStreamEvent {
  return chatStreamEventProblem(value) === null;
}

/**
 * Parses the JSON of one `data:` line; throws a ChatStreamProtocolError on anything that is not a protocol
 * event. `serverVersion` 1.x events are read in their 1.x casing.
 */
export function parseChatStreamEvent(data: string, serverVersion?: string | null): ChatStreamEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new ChatStreamProtocolError('a "data:" line is not JSON', data);
  }
  if (majorOf(serverVersion) === '1') parsed = upgradeLegacyEvent(parsed);
  const problem = chatStreamEventProblem(parsed);
  if (problem !== null) throw new ChatStreamProtocolError(problem, data);
  return parsed as ChatStreamEvent;
}

/**
 * A source as a 1.x server or an older stored conversation wrote it (`headingPath`), in today's form
 * (`heading_path`); anything else is returned as it is.
 */
export function upgradeLegacySource(value: unknown): unknown {
  if (!isRecord(value) || 'heading_path' in value || !('headingPath' in value)) return value;
  const { headingPath, ...rest } = value;
  return { ...rest, heading_path: headingPath };
}

/** A 1.x event in 2.x form: the sources of `sources` and `done` events get `heading_path`. */
export function upgradeLegacyEvent(value: unknown): unknown {
  if (!isRecord(value) || !Array.isArray(value.sources)) return value;
  return { ...value, sources: value.sources.map(upgradeLegacySource) };
}

function majorOf(version: string | null | undefined): string | undefined {
  return version?.split('.')[0];
}

/**
 * True when the server announced a later minor version of the same major than this package knows:
 * its stream may hold event types, fields or codes added since, which a client skips instead of failing.
 */
export function isNewerMinorVersion(serverVersion: string | null | undefined, ownVersion: string = CHAT_PROTOCOL_VERSION): boolean {
  if (!serverVersion) return false;
  const [serverMajor, serverMinor] = serverVersion.split('.').map(Number);
  const [ownMajor, ownMinor] = ownVersion.split('.').map(Number);
  return serverMajor === ownMajor && (serverMinor ?? 0) > (ownMinor ?? 0);
}

/**
 * Incremental SSE parser: feed it text as it arrives; it calls `onEvent` for
 * each complete `data:` event and ignores comments (heartbeats). Accepts
 * `\n`, `\r\n` and `\r` line endings.
 */
export function createChatStreamParser(
  onEvent: (event: ChatStreamEvent) => void,
  options: {
    /**
     * The server's `x-docs-chat-protocol` header: from a later minor version, events this version cannot
     * read are skipped; from a 1.x server, events are read in 1.x casing.
     */
    serverVersion?: string | null;
  } = {},
): {
  push(text: string): void;
  end(): void;
} {
  const skipUnreadable = isNewerMinorVersion(options.serverVersion);
  let buffer = '';
  let dataLines: string[] = [];

  const dispatch = (): void => {
    if (dataLines.length === 0) return;
    const data = dataLines.join('\n');
    dataLines = [];
    let event: ChatStreamEvent;
    try {
      event = parseChatStreamEvent(data, options.serverVersion);
    } catch (error) {
      if (skipUnreadable && error instanceof ChatStreamProtocolError) return;
      throw error;
    }
    onEvent(event);
  };

  const processLine = (line: string): void => {
    if (line === '') return dispatch();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') dataLines.push(value);
  };

  return {
    push(text: string): void {
      buffer += text;
      let match: RegExpExecArray | null;
      const lineBreak = /\r\n|\r|\n/g;
      let consumed = 0;
      while ((match = lineBreak.exec(buffer)) !== null) {
        // A lone '\r' at the very end may be the first half of '\r\n': wait for more.
        if (match[0] === '\r' && match.index === buffer.length - 1) break;
        processLine(buffer.slice(consumed, match.index));
        consumed = match.index + match[0].length;
      }
      buffer = buffer.slice(consumed);
    },
    end(): void {
      if (buffer.length > 0) processLine(buffer);
      buffer = '';
      dispatch();
    },
  };
}
