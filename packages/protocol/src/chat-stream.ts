/**
 * The chat stream protocol, shared by the server and the widget.
 *
 * `POST /chat` answers `text/event-stream`; each event is one `data:` line
 * holding one JSON object, followed by a blank line. Comment lines (`: ping`)
 * are heartbeats and carry nothing. The protocol version travels in the
 * `x-docs-chat-protocol` response header; a client that sees a different major
 * version should tell the reader to reload.
 *
 * This module has no imports on purpose: it runs in the browser bundle.
 */

export const CHAT_PROTOCOL_VERSION = '1.0';
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

export type ChatMode = 'general' | 'selection';

export interface ChatPage {
  url: string;
  title: string;
}

/** Body of `POST /chat`. */
export interface ChatRequest {
  message: string;
  mode: ChatMode;
  /** The highlighted text; required in selection mode. */
  context?: string;
  /** A UUID from an earlier answer's `meta` event, to continue that conversation. */
  conversation_id?: string;
  /** The page the reader is on. */
  page?: ChatPage;
  /**
   * The docs version the reader is on, as Docusaurus names it (`current`, `2.0`). On an index of a whole
   * site, general questions are answered from this version (the last one when unset); ignored otherwise.
   */
  version?: string;
  /** The docs plugin instance of that version (`default` when unset). */
  docs_instance?: string;
  /** The reader's locale (`i18n.currentLocale`); answers cite pages of this locale (the default one when unset). */
  locale?: string;
}

/** A cited section of the docs. `url` already carries the heading anchor. */
export interface SourceRef {
  file: string;
  title: string;
  heading: string | null;
  headingPath: string[];
  /** Empty for a JSON record that has no URL; `id` then names the record. */
  url: string;
  score: number;
  /** The record's id, sent only when `url` is empty (JSON records source), so the citation can name it. */
  id?: string;
  /** Docs version of the page, on an index of a whole site (absent for the blog). */
  version?: string;
  /** Locale of the page's URL, on an index of a whole site. */
  locale?: string;
  /** Set when the page is not translated into `locale`: its text is in this locale (the site's default). */
  fallback_locale?: string;
}

export interface TokenUsage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
}

export type FinishReason = 'stop' | 'length' | 'safety' | 'interrupted' | 'error' | 'no_answer' | 'other';

export interface MetaEvent {
  type: 'meta';
  conversation_id: string;
  message_id: string;
  mode: ChatMode;
  /** False when the conversation store is down: the answer streams but is not saved. */
  persisted: boolean;
}

export interface SourcesEvent {
  type: 'sources';
  sources: SourceRef[];
  /** On an index of a whole site: the version and locale the sources come from. */
  scope?: AnswerScope;
}

/** The version and locale a general answer was searched in. */
export interface AnswerScope {
  version: string;
  /** The version's label as the site shows it (`Next` for the current docs). */
  version_label: string;
  locale: string;
  /** Set when the question named another version than the reader's: the reader's version, not the one answered from. */
  reader_version?: string;
}

export interface TokenEvent {
  type: 'token';
  content: string;
}

export interface WarningEvent {
  type: 'warning';
  code: string;
  message: string;
}

export interface ErrorEvent {
  type: 'error';
  code: string;
  message: string;
  /** True when trying again later may succeed (busy, rate limited, upstream cut). */
  retryable?: boolean;
}

export interface DoneEvent {
  type: 'done';
  sources: SourceRef[];
  finish_reason: FinishReason;
  usage: TokenUsage | null;
}

export type ChatStreamEvent = MetaEvent | SourcesEvent | TokenEvent | WarningEvent | ErrorEvent | DoneEvent;

/** Non-streaming answer, for clients that send `Accept: application/json`. */
export interface ChatJsonResponse {
  conversation_id: string;
  message_id: string;
  answer: string;
  sources: SourceRef[];
  used_retrieval: boolean;
  finish_reason: FinishReason;
  persisted: boolean;
  /** On an index of a whole site: the version and locale the answer was searched in (as in the `sources` event). */
  scope?: AnswerScope;
  /** The stream's `warning` events, in order (e.g. `other_version`); empty when there were none. */
  warnings: { code: string; message: string }[];
}

/** Serialises one event as an SSE frame. */
export function encodeChatStreamEvent(event: ChatStreamEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** A docs version, instance or locale name as Docusaurus allows them in folder names and URLs. */
export const SCOPE_VALUE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The sentence an answer opens with when it comes from another version than the reader's. */
export function otherVersionNote(versionLabel: string, readerVersionLabel: string): string {
  return `This answer comes from the docs for version ${versionLabel}, not the version you are reading (${readerVersionLabel}).`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: string[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a `POST /chat` body; each error says what is wrong and how to fix it. */
export function validateChatRequest(body: unknown): Validation<ChatRequest> {
  if (!isRecord(body)) return { ok: false, errors: ['The body must be a JSON object like {"message": "...", "mode": "general"}.'] };
  const errors: string[] = [];
  const known = new Set(['message', 'mode', 'context', 'conversation_id', 'page', 'version', 'docs_instance', 'locale']);
  for (const key of Object.keys(body)) {
    if (!known.has(key)) errors.push(`Unknown field "${key}": allowed fields are ${[...known].join(', ')}.`);
  }
  const { message, mode, context, conversation_id: conversationId, page } = body;
  if (typeof message !== 'string') errors.push('"message" must be a string.');
  else if (message.trim().length === 0) errors.push('"message" must not be empty.');
  else if (message.length > MAX_MESSAGE_CHARS) errors.push(`"message" is ${message.length} characters; the limit is ${MAX_MESSAGE_CHARS}.`);
  if (mode !== 'general' && mode !== 'selection') errors.push('"mode" must be "general" or "selection".');
  if (context !== undefined && context !== null && typeof context !== 'string') errors.push('"context" must be a string.');
  if (mode === 'selection' && (typeof context !== 'string' || context.trim().length === 0)) {
    errors.push('"context" (the highlighted text) is required in selection mode.');
  }
  if (typeof context === 'string' && context.length > MAX_CONTEXT_CHARS) {
    errors.push(`"context" is ${context.length} characters; the limit is ${MAX_CONTEXT_CHARS}.`);
  }
  if (conversationId !== undefined && conversationId !== null && !isUuid(conversationId)) {
    errors.push('"conversation_id" must be a UUID taken from an earlier answer.');
  }
  if (page !== undefined && page !== null) {
    if (!isRecord(page) || typeof page.url !== 'string' || typeof page.title !== 'string') {
      errors.push('"page" must be an object {"url": string, "title": string}.');
    } else if (page.url.length > 2048 || page.title.length > 500) {
      errors.push('"page.url" must be at most 2048 and "page.title" at most 500 characters.');
    }
  }
  for (const field of ['version', 'docs_instance', 'locale'] as const) {
    const scopeValue = body[field];
    if (scopeValue === undefined || scopeValue === null) continue;
    if (typeof scopeValue !== 'string' || !SCOPE_VALUE.test(scopeValue)) {
      errors.push(`"${field}" must be a name like "2.0", "current" or "fr" (letters, digits, ".", "_", "-"; at most 64 characters).`);
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  const value: ChatRequest = { message: message as string, mode: mode as ChatMode };
  if (typeof context === 'string') value.context = context;
  if (typeof conversationId === 'string') value.conversation_id = conversationId;
  if (isRecord(page)) value.page = { url: page.url as string, title: page.title as string };
  if (typeof body.version === 'string') value.version = body.version;
  if (typeof body.docs_instance === 'string') value.docs_instance = body.docs_instance;
  if (typeof body.locale === 'string') value.locale = body.locale;
  return { ok: true, value };
}

const EVENT_TYPES = new Set(['meta', 'sources', 'token', 'warning', 'error', 'done']);

/** Parses the JSON of one `data:` line; throws on anything that is not a protocol event. */
export function parseChatStreamEvent(data: string): ChatStreamEvent {
  const parsed: unknown = JSON.parse(data);
  if (!isRecord(parsed) || typeof parsed.type !== 'string' || !EVENT_TYPES.has(parsed.type)) {
    throw new Error(`Not a docs-chat stream event: ${data.slice(0, 80)}`);
  }
  switch (parsed.type) {
    case 'token':
      if (typeof parsed.content !== 'string') throw new Error('token event without content');
      break;
    case 'meta':
      if (typeof parsed.conversation_id !== 'string' || typeof parsed.message_id !== 'string') {
        throw new Error('meta event without ids');
      }
      break;
    case 'sources':
    case 'done':
      if (!Array.isArray(parsed.sources)) throw new Error(`${parsed.type} event without sources`);
      break;
    case 'warning':
    case 'error':
      if (typeof parsed.code !== 'string' || typeof parsed.message !== 'string') {
        throw new Error(`${parsed.type} event without code or message`);
      }
      break;
  }
  return parsed as unknown as ChatStreamEvent;
}

/**
 * Incremental SSE parser: feed it text as it arrives; it calls `onEvent` for
 * each complete `data:` event and ignores comments (heartbeats). Accepts
 * `\n`, `\r\n` and `\r` line endings.
 */
export function createChatStreamParser(onEvent: (event: ChatStreamEvent) => void): {
  push(text: string): void;
  end(): void;
} {
  let buffer = '';
  let dataLines: string[] = [];

  const dispatch = (): void => {
    if (dataLines.length === 0) return;
    const data = dataLines.join('\n');
    dataLines = [];
    onEvent(parseChatStreamEvent(data));
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
