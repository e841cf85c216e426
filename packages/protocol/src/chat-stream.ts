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
// One file on purpose: the widget's bundler reads this package's sources in the workspace and does not
// map `.js` imports to `.ts` files, so the protocol module has no imports at all.

// ---------------------------------------------------------------------------------------------------
/**
 * One definition of each message on the wire: the builders below make plain
 * JSON Schema objects (the server hands them to Fastify, which validates
 * requests with Ajv) that also carry their TypeScript type (`Static<typeof X>`),
 * and `firstProblem` checks a value against them in the browser.
 *
 * Hand-written instead of TypeBox on purpose: the plugin may add at most five
 * packages to a Docusaurus site and already adds five, and the widget bundle
 * needs only this small subset (about 150 lines) rather than a whole validator.
 *
 * Supported keywords: type (one or with "null"), const, enum, minLength,
 * maxLength, pattern, format "uuid", minimum, maximum, items, maxItems,
 * properties, required, additionalProperties: false, anyOf, if/then (the
 * server's Ajv only; `firstProblem` skips if/then), and `problem`: the end of
 * a sentence naming the field, sent back instead of a generic one.
 */

/** A JSON Schema object that also knows the TypeScript type of the values it accepts. */
// `~static` and `~optional` exist in types only: no schema object has them at run time.
export type Schema<T> = { readonly [keyword: string]: unknown } & { readonly '~static'?: T };
/** A property that may be left out of its object. */
export type OptionalSchema<T> = Schema<T> & { readonly '~optional': true };
/** The TypeScript type a schema accepts. */
export type Static<S> = S extends Schema<infer T> ? T : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<P> = { [K in keyof P]: P[K] extends { readonly '~optional': true } ? never : K }[keyof P];
type OptionalKeys<P> = Exclude<keyof P, RequiredKeys<P>>;
type ObjectStatic<P extends Record<string, Schema<unknown>>> = Simplify<
  { [K in RequiredKeys<P>]: Static<P[K]> } & { [K in OptionalKeys<P>]?: Static<P[K]> }
>;

/** What each field is, in words: sent back as the problem when a value breaks a pattern or format. */
interface Described {
  /** Ends a sentence that starts with the field's name, e.g. `must be a UUID from an earlier answer`. */
  problem?: string;
}

const optionalSchemas = new WeakSet<object>();

function described<T>(schema: Record<string, unknown>, options: Described | undefined): Schema<T> {
  return options?.problem ? { ...schema, problem: options.problem } : schema;
}

export const Wire = {
  string(options: Described & { minLength?: number; maxLength?: number; pattern?: string; format?: 'uuid' } = {}): Schema<string> {
    const { problem, ...rest } = options;
    return described<string>({ type: 'string', ...rest }, { problem });
  },
  /** One of a fixed list of strings (codes, modes). */
  oneOf<const V extends readonly string[]>(values: V, options?: Described): Schema<V[number]> {
    return described<V[number]>({ type: 'string', enum: [...values] }, options);
  },
  literal<const V extends string>(value: V): Schema<V> {
    return { type: 'string', const: value };
  },
  number(options: { minimum?: number; maximum?: number } = {}): Schema<number> {
    return { type: 'number', ...options };
  },
  integer(options: { minimum?: number; maximum?: number } = {}): Schema<number> {
    return { type: 'integer', ...options };
  },
  boolean(): Schema<boolean> {
    return { type: 'boolean' };
  },
  /** The same value or `null` (the type keyword gains "null", so every other keyword still applies). */
  nullable<T>(schema: Schema<T>, options?: Described): Schema<T | null> {
    const nullable: Record<string, unknown> = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) nullable.enum = [...(schema.enum as unknown[]), null];
    return described<T | null>(nullable, options);
  },
  array<T>(items: Schema<T>, options: { maxItems?: number } = {}): Schema<T[]> {
    return { type: 'array', items, ...options };
  },
  /** Marks an object property that may be left out. */
  optional<T>(schema: Schema<T>): OptionalSchema<T> {
    const copy = { ...schema };
    optionalSchemas.add(copy);
    return copy as OptionalSchema<T>;
  },
  /**
   * An object with these properties. `closed` objects refuse unknown fields (request bodies); open ones
   * ignore them, so a client keeps reading events that a newer minor version gave an extra field.
   */
  object<P extends Record<string, Schema<unknown>>>(
    properties: P,
    options: { closed?: boolean } & Described = {},
  ): Schema<ObjectStatic<P>> {
    const required = Object.keys(properties).filter((key) => !optionalSchemas.has(properties[key] as object));
    const schema: Record<string, unknown> = { type: 'object', properties, required };
    if (options.closed) schema.additionalProperties = false;
    return described<ObjectStatic<P>>(schema, options);
  },
  /** An object whose fields this definition leaves open (a debugging aid that changes with the search code). */
  openObject<T extends object = Record<string, unknown>>(): Schema<T> {
    return { type: 'object', additionalProperties: true };
  },
  /** Any one of the schemas. */
  anyOf<S extends readonly Schema<unknown>[]>(variants: S): Schema<Static<S[number]>> {
    return { anyOf: [...variants] };
  },
};

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const patterns = new Map<string, RegExp>();

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(expected: unknown, actual: string): boolean {
  const allowed = Array.isArray(expected) ? expected : [expected];
  return allowed.some((type) => type === actual || (type === 'number' && actual === 'integer'));
}

/**
 * The first way `value` breaks `schema`, as `"path" problem`, or null when it fits. Used on every event
 * the widget receives, so it stops at the first problem instead of listing them all.
 */
export function firstProblem(schema: Schema<unknown>, value: unknown, path = ''): string | null {
  const name = path === '' ? 'the value' : `"${path}"`;
  if (Array.isArray(schema.anyOf)) {
    const fits = (schema.anyOf as Schema<unknown>[]).some((variant) => firstProblem(variant, value, path) === null);
    return fits ? null : `${name} ${(schema.problem as string | undefined) ?? 'has none of the allowed shapes'}`;
  }
  const actual = typeOf(value);
  if (schema.type !== undefined && !typeMatches(schema.type, actual))
    return `${name} must be ${[schema.type]
      .flat()
      .filter((type): type is string => typeof type === 'string')
      .join(' or ')}, not ${actual}`;
  if (schema.const !== undefined && value !== schema.const) return `${name} must be ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    return `${name} must be one of ${schema.enum.map((allowed) => JSON.stringify(allowed)).join(', ')}, not ${JSON.stringify(value)}`;
  }
  if (typeof value === 'string') return stringProblem(schema, value, name);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return `${name} must be at least ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return `${name} must be at most ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `${name} has more than ${schema.maxItems} items`;
    const items = schema.items as Schema<unknown> | undefined;
    if (items) {
      for (let index = 0; index < value.length; index += 1) {
        const problem = firstProblem(items, value[index], `${path}[${index}]`);
        if (problem) return problem;
      }
    }
  }
  if (actual === 'object') return objectProblem(schema, value as Record<string, unknown>, path);
  return null;
}

function stringProblem(schema: Schema<unknown>, value: string, name: string): string | null {
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return `${name} must have at least ${schema.minLength} characters`;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return `${name} must have at most ${schema.maxLength} characters`;
  const wrongForm = `${name} ${(schema.problem as string | undefined) ?? 'is not in the expected form'}`;
  if (schema.format === 'uuid' && !UUID_PATTERN.test(value)) return wrongForm;
  if (typeof schema.pattern === 'string') {
    let pattern = patterns.get(schema.pattern);
    if (!pattern) patterns.set(schema.pattern, (pattern = new RegExp(schema.pattern, 'u')));
    if (!pattern.test(value)) return wrongForm;
  }
  return null;
}

function objectProblem(schema: Schema<unknown>, value: Record<string, unknown>, path: string): string | null {
  const properties = (schema.properties ?? {}) as Record<string, Schema<unknown>>;
  const prefix = path === '' ? '' : `${path}.`;
  for (const key of (schema.required ?? []) as string[]) {
    if (!(key in value)) return `"${prefix}${key}" is required`;
  }
  for (const [key, field] of Object.entries(value)) {
    const fieldSchema = properties[key];
    if (fieldSchema) {
      const problem = firstProblem(fieldSchema, field, `${prefix}${key}`);
      if (problem) return problem;
    } else if (schema.additionalProperties === false) {
      return `Unknown field "${prefix}${key}"`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------

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
  Wire.string({
    pattern: SCOPE_VALUE.source,
    problem: 'must be a name like "2.0", "current" or "fr" (letters, digits, ".", "_", "-"; at most 64 characters).',
  });

/** Body of `POST /chat`; the server validates it with this schema before anything streams. */
export const chatRequestSchema = {
  ...Wire.object(
    {
      // JSON Schema counts characters (code points), as readers do; a reader's 4,000 characters always fit.
      message: Wire.string({
        maxLength: MAX_MESSAGE_CHARS,
        pattern: '\\S',
        problem: `must not be empty: send the question as a string of at most ${MAX_MESSAGE_CHARS} characters.`,
      }),
      mode: Wire.oneOf(CHAT_MODES),
      /** The highlighted text; required in selection mode. */
      context: Wire.optional(Wire.nullable(Wire.string({ maxLength: MAX_CONTEXT_CHARS }))),
      /** A UUID from an earlier answer's `meta` event, to continue that conversation. */
      conversation_id: Wire.optional(
        Wire.nullable(Wire.string({ format: 'uuid', problem: 'must be a UUID taken from an earlier answer.' })),
      ),
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

// ---------------------------------------------------------------------------------------------------
/**
 * The response of `GET /search`, defined once: the server serializes it by this
 * schema and the widget's search box checks what it receives against it.
 */

export const searchResultSchema = Wire.object({
  rank: Wire.integer(),
  score: Wire.number(),
  file: Wire.string(),
  title: Wire.string(),
  heading: Wire.nullable(Wire.string()),
  heading_path: Wire.array(Wire.string()),
  url: Wire.string(),
  /** The start of the section's text, flattened to one line (about 300 characters). */
  excerpt: Wire.string(),
  /** Docs version, locale and untranslated-page note, on an index of a whole site. */
  version: Wire.optional(Wire.string()),
  locale: Wire.optional(Wire.string()),
  fallback_locale: Wire.optional(Wire.string()),
});
export type SearchResult = Static<typeof searchResultSchema>;

export const searchResponseSchema = Wire.object({
  query: Wire.string(),
  results: Wire.array(searchResultSchema),
  out_of_scope: Wire.boolean(),
  confidence: Wire.number(),
  /** With `explain=true`: the words added to the question and the out-of-scope signals (as `docs-chat search --explain`). */
  explanation: Wire.optional(Wire.openObject()),
  /** On an index of a whole site: the version and locale searched, and the asked values the index does not hold. */
  scope: Wire.optional(
    Wire.object({
      version: Wire.string(),
      version_label: Wire.string(),
      locale: Wire.string(),
      reader_version: Wire.optional(Wire.string()),
      ignored: Wire.array(Wire.string()),
    }),
  ),
});
export type SearchResponse = Static<typeof searchResponseSchema>;
