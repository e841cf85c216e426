/**
 * Errors a user, admin or operator can meet. Each carries a stable code and a
 * hint that says what to do next; `retryable` tells callers above a provider
 * whether trying again may help (rate limits, 5xx, network faults).
 */
export type DocsChatErrorCode =
  | 'config_invalid'
  | 'docs_dir_missing'
  | 'site_invalid'
  | 'index_missing'
  | 'index_mismatch'
  | 'index_corrupt'
  | 'ingest_locked'
  | 'embedder_unavailable'
  | 'embedder_rejected'
  | 'embedder_rate_limited'
  | 'embedder_model_invalid'
  | 'service_busy'
  | 'store_unavailable'
  | 'store_rate_limited'
  | 'store_quota_exceeded'
  | 'store_rejected'
  | 'query_invalid'
  | 'git_failed'
  | 'git_unreachable'
  | 'git_ref_missing'
  | 'git_auth_required'
  | 'git_shallow'
  | 'records_invalid'
  | 'aborted';

export interface DocsChatErrorOptions {
  hint?: string;
  retryable?: boolean;
  /** Milliseconds the remote side asked us to wait before retrying. */
  retryAfterMs?: number;
  /** HTTP status of the upstream answer, when there was one. */
  status?: number;
  cause?: unknown;
}

export class DocsChatError extends Error {
  readonly code: DocsChatErrorCode;
  readonly hint: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;

  constructor(code: DocsChatErrorCode, message: string, options: DocsChatErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DocsChatError';
    this.code = code;
    this.hint = options.hint;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }

  /** Message plus hint, as printed by the CLI. */
  describe(): string {
    return this.hint ? `${this.message}\n  → ${this.hint}` : this.message;
  }
}

export function isDocsChatError(error: unknown): error is DocsChatError {
  return error instanceof DocsChatError;
}

/** An abort that callers can recognise whatever raised it (fetch, SDKs, our own code). */
export function isAbortError(error: unknown): boolean {
  if (error instanceof DocsChatError) return error.code === 'aborted';
  // DOMException from fetch may come from another realm, so look at its shape, not its class.
  if (typeof error !== 'object' || error === null) return false;
  const { name, message } = error as { name?: unknown; message?: unknown };
  if (name === 'AbortError' || name === 'APIUserAbortError') return true;
  return typeof message === 'string' && /\baborted\b/i.test(message);
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DocsChatError('aborted', 'The request was cancelled.');
}
