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
  /** The server's `error.code` or stream `code`, when it sent one. */
  readonly code: string | null;
  /** Seconds to wait, from a `retry-after` header. */
  readonly retryAfterSeconds: number | null;

  constructor(
    kind: ChatErrorKind,
    message: string,
    options: { retryable?: boolean; status?: number | null; code?: string | null; retryAfterSeconds?: number | null } = {},
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

const BUSY_CODES = new Set(['service_busy', 'busy', 'llm_busy', 'shutting_down', 'overloaded', 'llm_rate_limited']);

/** Maps an `error` event of the stream to a client error. */
export function errorFromStreamEvent(code: string, message: string, retryable: boolean | undefined): ChatClientError {
  if (code === 'rate_limited') return new ChatClientError('rate_limited', message, { code, retryable: true });
  if (BUSY_CODES.has(code)) return new ChatClientError('busy', message, { code, retryable: true });
  return new ChatClientError('server', message, { code, retryable: retryable ?? true });
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

/** Maps a non-2xx HTTP response (JSON body `{error: {code, message, details}}`) to a client error. */
export async function errorFromResponse(response: Response): Promise<ChatClientError> {
  let code: string | null = null;
  let message = `The server answered ${response.status}.`;
  try {
    const body = (await response.json()) as ErrorBody;
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
    if (Array.isArray(body.error?.details) && body.error.details.length > 0) {
      message = `${message} ${body.error.details.filter((detail) => typeof detail === 'string').join(' ')}`;
    }
  } catch {
    // Not JSON (a proxy's error page, say): keep the generic message.
  }
  const retryAfterHeader = response.headers.get('retry-after');
  const retryAfterSeconds = retryAfterHeader !== null && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : null;
  const status = response.status;
  const options = { status, code, retryAfterSeconds };
  if (status === 429) return new ChatClientError('rate_limited', message, options);
  if (status === 503 || (code !== null && BUSY_CODES.has(code))) return new ChatClientError('busy', message, options);
  if (status === 404) return new ChatClientError('not_found', message, { ...options, retryable: false });
  if (status >= 400 && status < 500) return new ChatClientError('invalid_request', message, { ...options, retryable: false });
  return new ChatClientError('server', message, options);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
