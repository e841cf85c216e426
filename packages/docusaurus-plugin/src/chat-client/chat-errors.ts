import { isErrorResponseBody, type ErrorEvent, type HttpErrorCode, type StreamErrorCode } from '@docs-chat/protocol';

/**
 * What went wrong with a request, in terms the widget can explain to a reader.
 * The widget picks the translated text from `kind`; `detail` is the server's
 * own message when it sent one (already client-safe by the server's rules).
 */
export type ChatErrorKind =
  | 'network' // the server cannot be reached (down, offline, CORS refused)
  | 'rate_limited' // 429: this reader asked too often
  | 'busy' // the server or the model is overloaded for everyone
  | 'invalid_request' // 400/413/415: the question cannot be sent as is
  | 'not_found' // 404: e.g. a conversation that no longer exists
  | 'protocol' // the server speaks another protocol version or sent garbage
  | 'server'; // anything else on the server's side

export class ChatClientError extends Error {
  readonly kind: ChatErrorKind;
  readonly retryable: boolean;
  readonly status: number | null;
  /** The server's `error.code` or stream `code`, when it sent one this version knows. */
  readonly code: HttpErrorCode | StreamErrorCode | null;
  /** Seconds to wait, from a `retry-after` header. */
  readonly retryAfterSeconds: number | null;

  constructor(
    kind: ChatErrorKind,
    message: string,
    options: {
      retryable?: boolean;
      status?: number | null;
      code?: HttpErrorCode | StreamErrorCode | null;
      retryAfterSeconds?: number | null;
    } = {},
  ) {
    super(message);
    this.name = 'ChatClientError';
    this.kind = kind;
    this.retryable = options.retryable ?? (kind === 'network' || kind === 'rate_limited' || kind === 'busy' || kind === 'server');
    this.status = options.status ?? null;
    this.code = options.code ?? null;
    this.retryAfterSeconds = options.retryAfterSeconds ?? null;
  }
}

/** Stream codes that mean "busy for everyone, try again shortly" (the model's rate limit ends as `busy`). */
const BUSY_STREAM_CODES: ReadonlySet<StreamErrorCode> = new Set<StreamErrorCode>(['busy', 'shutting_down']);
/** HTTP codes with that meaning (also told by status 503). */
const BUSY_HTTP_CODES: ReadonlySet<HttpErrorCode> = new Set<HttpErrorCode>(['service_busy', 'shutting_down']);

/** Maps an `error` event of the stream to a client error. */
export function errorFromStreamEvent({ code, message, retryable }: Pick<ErrorEvent, 'code' | 'message' | 'retryable'>): ChatClientError {
  if (BUSY_STREAM_CODES.has(code)) return new ChatClientError('busy', message, { code, retryable: true });
  return new ChatClientError('server', message, { code, retryable: retryable ?? true });
}

/** A body that has at least a message, from a server of another version than this page's. */
interface LooseErrorBody {
  error?: { message?: unknown; details?: unknown };
}

/** Maps a non-2xx HTTP response (JSON body `{error: {code, message, details}}`) to a client error. */
export async function errorFromResponse(response: Response): Promise<ChatClientError> {
  let code: HttpErrorCode | null = null;
  let message = `The server answered ${response.status}.`;
  try {
    const body: unknown = await response.json();
    // A code this version does not know (a newer server's) is left out; the message is still meant for the reader.
    if (isErrorResponseBody(body)) code = body.error.code;
    const { message: serverMessage, details } = (body as LooseErrorBody | null)?.error ?? {};
    if (typeof serverMessage === 'string') message = serverMessage;
    if (Array.isArray(details) && details.length > 0)
      message = `${message} ${details.filter((detail) => typeof detail === 'string').join(' ')}`;
  } catch {
    // Not JSON (a proxy's error page, say): keep the generic message.
  }
  const retryAfterHeader = response.headers.get('retry-after');
  const retryAfterSeconds = retryAfterHeader !== null && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : null;
  const status = response.status;
  const options = { status, code, retryAfterSeconds };
  if (status === 429) return new ChatClientError('rate_limited', message, options);
  if (status === 503 || (code !== null && BUSY_HTTP_CODES.has(code))) return new ChatClientError('busy', message, options);
  if (status === 404) return new ChatClientError('not_found', message, { ...options, retryable: false });
  if (status >= 400 && status < 500) return new ChatClientError('invalid_request', message, { ...options, retryable: false });
  return new ChatClientError('server', message, options);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
