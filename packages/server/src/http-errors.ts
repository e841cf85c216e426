/**
 * Every error a client of the HTTP API can meet, in one table: a stable code,
 * the HTTP status and a default message that says what to do next. Routes throw
 * `HttpError`; the error handler in `app.ts` turns anything else into one of
 * these so clients never see stack traces, SQL or keys. The codes are the
 * protocol package's `HttpErrorCode` union, which the widget shares: a row for
 * a code outside it, or a code without a row, does not compile.
 */
import { HTTP_ERROR_CODES, type ErrorResponseBody, type HttpErrorCode } from '@docs-chat/core/protocol';

export { HTTP_ERROR_CODES, type ErrorResponseBody, type HttpErrorCode };

export const HTTP_ERRORS = {
  invalid_request: { status: 400, message: 'The request is not valid; see "details" for what to change.' },
  malformed_request: {
    status: 400,
    message: 'The request is not valid HTTP or its URL cannot be decoded; check the path and its %-escapes.',
  },
  invalid_json: { status: 400, message: 'The body is not valid JSON; send a JSON object with "content-type: application/json".' },
  unauthorized: {
    status: 401,
    message: 'Send "Authorization: Bearer <ADMIN_TOKEN>" with the token configured on the server.',
  },
  origin_not_allowed: {
    status: 403,
    message: 'This site is not allowed to call docs-chat; the server admin must add its origin to CORS_ORIGINS.',
  },
  route_not_found: {
    status: 404,
    message:
      'No such endpoint. Available: POST /chat, GET and DELETE /conversations/:id, GET /conversations/:id/export, POST /conversations/:id/share, GET /shared/:shareId, POST /feedback, GET /search, GET /health.',
  },
  conversation_not_found: {
    status: 404,
    message: 'No conversation has this id; start a new one by leaving out "conversation_id".',
  },
  share_not_found: {
    status: 404,
    message: 'This shared conversation does not exist or was deleted; ask whoever shared it for a new link.',
  },
  message_not_found: { status: 404, message: 'No answer has this "message_id"; take it from the "meta" event of an answer.' },
  signature_invalid: {
    status: 401,
    message: "The webhook signature is missing or wrong: set the same secret in the git host's webhook settings and in GIT_WEBHOOK_SECRET.",
  },
  sync_not_configured: {
    status: 409,
    message: 'No git repository is configured for sync: set GIT_URL (and GIT_REF, GIT_PATH) on the server and restart it.',
  },
  ingest_running: { status: 409, message: 'An ingest is already running; wait for it to finish, then try again.' },
  request_timeout: {
    status: 408,
    message:
      'The request was not received in time; send the headers and the whole body at once (limits set by HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS).',
  },
  payload_too_large: {
    status: 413,
    message: 'The body is too large; shorten the message or the highlighted text (limit set by BODY_LIMIT_BYTES).',
  },
  uri_too_long: {
    status: 414,
    message: 'A part of the path is too long; conversation ids are the 36-character UUIDs from the "meta" event of an answer.',
  },
  headers_too_large: { status: 431, message: 'The request headers are too large; send fewer or shorter headers (cookies included).' },
  unsupported_media_type: { status: 415, message: 'Send the body as JSON with "content-type: application/json".' },
  rate_limited: { status: 429, message: 'Too many requests; please wait a moment before asking again.' },
  ingest_failed: { status: 500, message: 'The ingest failed; see the server logs for details.' },
  internal_error: { status: 500, message: 'Something went wrong on the server; please try again. The admin can find details in the logs.' },
  llm_failed: { status: 502, message: 'The language model could not answer; please try again in a moment.' },
  service_busy: { status: 503, message: 'Service temporarily busy, please try again in a moment' },
  search_unavailable: { status: 503, message: 'The documentation index cannot be searched right now; please try again shortly.' },
  conversation_store_unavailable: {
    status: 503,
    message: 'Conversations cannot be read or saved right now; please try again shortly.',
  },
  shutting_down: { status: 503, message: 'The server is restarting; please try again in a few seconds.' },
} as const satisfies Record<HttpErrorCode, { status: number; message: string }>;

/** Seconds a client refused during shutdown is told to wait (another replica, or this one restarted, will answer). */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

/** `retry-after` seconds for a refusal that says how long to wait in milliseconds (at least 1; 1 when it does not say). */
export function retryAfterSecondsFor(retryAfterMs: number | undefined): number {
  return Math.max(1, Math.ceil((retryAfterMs ?? 1000) / 1000));
}

/** An error with a code from the table; `details` lists field-level problems for 400s. */
export class HttpError extends Error {
  readonly code: HttpErrorCode;
  readonly statusCode: number;
  readonly details: string[] | undefined;
  /** Seconds a client should wait, sent as `retry-after`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: HttpErrorCode, options: { message?: string; details?: string[]; retryAfterSeconds?: number } = {}) {
    super(options.message ?? HTTP_ERRORS[code].message);
    this.name = 'HttpError';
    this.code = code;
    this.statusCode = HTTP_ERRORS[code].status;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** At most this many field problems are listed, so a body with thousands of unknown keys gets a small answer. */
export const MAX_ERROR_DETAILS = 10;
/** Each listed problem is cut to this many characters (a problem may quote a field name from the body). */
export const MAX_ERROR_DETAIL_CHARS = 300;

export function errorResponseBody(error: HttpError, requestId: string): ErrorResponseBody {
  const body: ErrorResponseBody = { error: { code: error.code, message: error.message }, request_id: requestId };
  if (error.details && error.details.length > 0) body.error.details = boundedDetails(error.details);
  return body;
}

function boundedDetails(details: string[]): string[] {
  const listed = details
    .slice(0, MAX_ERROR_DETAILS)
    .map((detail) => (detail.length > MAX_ERROR_DETAIL_CHARS ? `${detail.slice(0, MAX_ERROR_DETAIL_CHARS - 1)}…` : detail));
  const more = details.length - listed.length;
  if (more > 0) listed.push(`…and ${more} more problem${more === 1 ? '' : 's'} of the same kinds; fix the ones above and send again.`);
  return listed;
}

/** Maps Fastify's own errors (body parsing, limits) to our table; anything unknown is an internal error. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const { code, statusCode } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    statusCode?: unknown;
  };
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpError('invalid_json');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new HttpError('uri_too_long');
    case 'FST_ERR_BAD_URL':
      return new HttpError('malformed_request');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HttpError('unsupported_media_type');
    default:
      break;
  }
  if (error instanceof SyntaxError && statusCode === 400) return new HttpError('invalid_json');
  if (statusCode === 503) return new HttpError('shutting_down');
  return new HttpError('internal_error');
}
