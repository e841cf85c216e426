/**
 * Turns whatever `@qdrant/js-client-rest` throws into a DocsChatError with a
 * hint, at the adapter boundary. Status codes and texts follow Qdrant's
 * `StorageError` -> HTTP mapping (src/actix/helpers.rs): 429 rate limits,
 * 507 InsufficientStorage on recent servers, and on older ones disk exhaustion
 * surfaces as 500 "Service internal error: No space left on device: ...".
 */
import { DocsChatError, isAbortError, isDocsChatError } from '../errors.js';

export interface QdrantErrorContext {
  /** Qdrant URL without credentials, as shown to admins. */
  url: string;
  collection: string;
  /** What the adapter was doing, e.g. `upserting 64 points`. */
  operation: string;
  timeoutMs: number;
  /** Whether the caller's own signal fired: any other abort comes from the client's timeout. */
  callerAborted: boolean;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const QUOTA_TEXT =
  /no space left on device|out of disk|insufficient storage|storage quota|quota exceeded|disk (is )?full|storage (size )?limit/i;

export function toStoreError(error: unknown, context: QdrantErrorContext): DocsChatError {
  if (isDocsChatError(error)) return error;
  const where = `Qdrant at ${context.url}`;
  const name = errorName(error);

  // The client reports its timeout as QdrantClientTimeoutError, except when the fetch's AbortError comes
  // from another realm (test sandboxes) and slips past its instanceof check: then it is a bare abort.
  if (name === 'QdrantClientTimeoutError' || (isAbortError(error) && !context.callerAborted)) {
    return new DocsChatError('store_unavailable', `${where} did not answer within ${context.timeoutMs} ms while ${context.operation}.`, {
      hint: 'Check that Qdrant is healthy and not overloaded, or raise the store timeout.',
      retryable: true,
      cause: error,
    });
  }
  if (name === 'QdrantClientResourceExhaustedError') {
    const retryAfter = (error as { retry_after?: unknown }).retry_after;
    return rateLimited(
      where,
      context,
      typeof retryAfter === 'number' && Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined,
      error,
    );
  }
  if (isAbortError(error)) return new DocsChatError('aborted', 'The request was cancelled.', { cause: error });

  const response = responseOf(error);
  if (response) {
    const { status } = response;
    const detail = response.message ?? `HTTP ${status}`;
    if (status === 429) return rateLimited(where, context, response.retryAfterMs, error, detail);
    if (status === 507 || QUOTA_TEXT.test(detail)) {
      return new DocsChatError('store_quota_exceeded', `${where} is out of storage while ${context.operation}: ${detail}`, {
        hint: 'Free disk space on the Qdrant server or raise the storage quota of the cluster, then re-run the ingest: it resumes with the files not yet stored.',
        status,
        cause: error,
      });
    }
    if (status === 404 && /collection/i.test(detail)) {
      return new DocsChatError('index_missing', `${where} has no collection "${context.collection}".`, {
        hint: 'Build the index with `pnpm docs-chat ingest`, or check QDRANT_COLLECTION.',
        status,
        cause: error,
      });
    }
    if (status === 401 || status === 403) {
      return new DocsChatError('store_rejected', `${where} refused the request while ${context.operation}: ${detail}`, {
        hint: 'Check QDRANT_API_KEY: it must be a key of this cluster with write access for the ingest.',
        status,
        cause: error,
      });
    }
    if (status === 408 || status >= 500) {
      return new DocsChatError('store_unavailable', `${where} failed while ${context.operation}: ${detail}`, {
        hint: 'This is usually temporary: retry, and check the Qdrant logs if it persists.',
        retryable: true,
        status,
        cause: error,
      });
    }
    return new DocsChatError('store_rejected', `${where} rejected the request while ${context.operation}: ${detail}`, {
      hint: 'This points to a docs-chat bug or an incompatible Qdrant version (1.10 or newer is needed); please report it with this message.',
      status,
      cause: error,
    });
  }

  const code = networkCode(error);
  if (code !== undefined || (error instanceof TypeError && /fetch failed/i.test(error.message))) {
    return new DocsChatError('store_unavailable', `Cannot reach ${where} (${code ?? 'network error'}) while ${context.operation}.`, {
      hint: 'Check that Qdrant is running and that QDRANT_URL points at it (and QDRANT_API_KEY for a cloud cluster).',
      retryable: true,
      cause: error,
    });
  }
  return new DocsChatError('store_unavailable', `${where} failed while ${context.operation}: ${describe(error)}`, {
    hint: 'Check that QDRANT_URL points at a Qdrant server (1.10 or newer).',
    retryable: true,
    cause: error,
  });
}

function rateLimited(
  where: string,
  context: QdrantErrorContext,
  retryAfterMs: number | undefined,
  cause: unknown,
  detail?: string,
): DocsChatError {
  return new DocsChatError(
    'store_rate_limited',
    `${where} is rate limiting requests while ${context.operation}${detail ? `: ${detail}` : ''}.`,
    {
      hint: 'Wait and retry, or raise the rate limits of the Qdrant cluster (strict mode read/write_rate_limit).',
      retryable: true,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      status: 429,
      cause,
    },
  );
}

/** The HTTP answer carried by an `ApiError` of the client's fetch layer, if any. */
function responseOf(error: unknown): { status: number; message: string | undefined; retryAfterMs: number | undefined } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { status, data, headers } = error as { status?: unknown; data?: unknown; headers?: unknown };
  if (typeof status !== 'number') return null;
  let message: string | undefined;
  if (typeof data === 'object' && data !== null) {
    const inner = (data as { status?: unknown }).status;
    if (typeof inner === 'object' && inner !== null && typeof (inner as { error?: unknown }).error === 'string') {
      message = (inner as { error: string }).error;
    }
  } else if (typeof data === 'string' && data.length > 0) {
    message = data.slice(0, 300);
  }
  let retryAfterMs: number | undefined;
  if (headers && typeof (headers as Headers).get === 'function') {
    const value = Number((headers as Headers).get('retry-after'));
    if (Number.isFinite(value) && value > 0) retryAfterMs = value * 1000;
  }
  return { status, message, retryAfterMs };
}

function networkCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorName(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name } = error as { name?: unknown };
  return typeof name === 'string' ? name : undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The URL as safe to print: no user:password part. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
