/**
 * Retries written once, above every provider (embedders, LLM calls, stores):
 * exponential backoff with full jitter, never shorter than the delay the
 * server asked for, and abort-aware so a closed tab or Ctrl-C stops the wait
 * at once.
 */
import { DocsChatError, isAbortError, isDocsChatError } from './errors.js';

export interface RetryAttemptInfo {
  /** The attempt that just failed, from 1. */
  attempt: number;
  /** How long we wait before the next attempt. */
  delayMs: number;
  error: unknown;
}

export interface RetryOptions {
  /** Total tries, the first included (default 3). */
  attempts?: number;
  /** Backoff scale: attempt n waits a random time up to `baseDelayMs * 2^(n-1)` (default 500). */
  baseDelayMs?: number;
  /** Cap of the backoff itself; a longer delay the server asked for still wins (default 20 000). */
  maxDelayMs?: number;
  /**
   * When the server asks for a longer wait than this, give up instead of
   * waiting (a reader should not stare at a spinner for a minute). Default 60 000.
   */
  maxServerDelayMs?: number;
  signal?: AbortSignal;
  /** Whether a failure may succeed on another try (default: `isRetryableError`). */
  isRetryable?: (error: unknown) => boolean;
  /** The delay the server asked for, if any (default: `retryAfterMsOf`). */
  retryAfterMs?: (error: unknown) => number | undefined;
  onRetry?: (info: RetryAttemptInfo) => void;
}

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_BASE_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 20_000;
const DEFAULT_MAX_SERVER_DELAY_MS = 60_000;

/** Runs `operation` until it succeeds, fails for good, runs out of attempts or is aborted. */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, Math.floor(options.attempts ?? DEFAULT_ATTEMPTS));
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const maxServerDelayMs = options.maxServerDelayMs ?? DEFAULT_MAX_SERVER_DELAY_MS;
  const isRetryable = options.isRetryable ?? isRetryableError;
  const retryAfterOf = options.retryAfterMs ?? retryAfterMsOf;

  for (let attempt = 1; ; attempt += 1) {
    throwIfAbortedSignal(options.signal);
    try {
      return await operation(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw asAbortError(error);
      if (attempt >= attempts || !isRetryable(error)) throw error;
      const requested = retryAfterOf(error);
      if (requested !== undefined && requested > maxServerDelayMs) throw error;
      const backoff = Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      const delayMs = Math.round(Math.max(requested ?? 0, backoff));
      options.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }
}

/** Statuses worth another try: timeouts, conflicts, rate limits and server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const NETWORK_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * The default retry policy: DocsChatError says so itself; otherwise an HTTP
 * status decides (never 400/401/403/404); failures without a status count
 * when they look like the network (reset, refused, "fetch failed").
 */
export function isRetryableError(error: unknown): boolean {
  if (isDocsChatError(error)) return error.retryable;
  // An abort nobody asked for is a provider's own timeout; providers map those themselves.
  if (isAbortError(error)) return false;
  const status = statusOf(error);
  if (status !== undefined) return isRetryableStatus(status);
  return isNetworkError(error);
}

/** True for connection-level failures, looking through `cause` chains. */
export function isNetworkError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    const { code, name, message } = current as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
    if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') return true;
    if (typeof message === 'string' && /fetch failed|terminated|socket hang up|other side closed/i.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The HTTP status an SDK error carries, if any. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status } = error as { status?: unknown };
  return typeof status === 'number' && status >= 100 && status < 600 ? status : undefined;
}

/**
 * The delay the server asked for: `retryAfterMs` of a DocsChatError, a
 * Google RetryInfo in an error body, or a `retry-after(-ms)` header.
 */
export function retryAfterMsOf(error: unknown): number | undefined {
  if (isDocsChatError(error)) return error.retryAfterMs;
  if (typeof error !== 'object' || error === null) return undefined;
  const { headers, message } = error as { headers?: unknown; message?: unknown };
  const fromHeaders = retryAfterFromHeaders(headers);
  if (fromHeaders !== undefined) return fromHeaders;
  return typeof message === 'string' ? parseGoogleRetryDelay(message) : undefined;
}

/**
 * Reads `google.rpc.RetryInfo.retryDelay` ("42s", "1.5s", or `{seconds,
 * nanos}`) from a Gemini error body, given as an object or as its JSON text
 * (the @google/genai ApiError message). Returns milliseconds.
 */
export function parseGoogleRetryDelay(errorBody: unknown): number | undefined {
  let body = errorBody;
  if (typeof body === 'string') {
    const start = body.indexOf('{');
    if (start === -1) return undefined;
    try {
      body = JSON.parse(body.slice(start)) as unknown;
    } catch {
      return undefined;
    }
  }
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const { '@type': type, retryDelay } = (detail ?? {}) as { '@type'?: unknown; retryDelay?: unknown };
    if (typeof type !== 'string' || !type.endsWith('google.rpc.RetryInfo')) continue;
    return durationToMs(retryDelay);
  }
  return undefined;
}

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date). Returns milliseconds. */
export function parseRetryAfterHeader(retryAfter: string | null | undefined, retryAfterMs?: string | null): number | undefined {
  if (retryAfterMs) {
    const value = Number(retryAfterMs);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  if (!retryAfter) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function retryAfterFromHeaders(headers: unknown): number | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const read = (name: string): string | null | undefined => {
    const getter = (headers as { get?: unknown }).get;
    if (typeof getter === 'function') return (getter as (key: string) => string | null).call(headers, name);
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  return parseRetryAfterHeader(read('retry-after'), read('retry-after-ms'));
}

function durationToMs(duration: unknown): number | undefined {
  if (typeof duration === 'string') {
    const match = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(duration);
    return match ? Math.round(Number(match[1]) * 1000) : undefined;
  }
  if (typeof duration === 'object' && duration !== null) {
    const { seconds, nanos } = duration as { seconds?: unknown; nanos?: unknown };
    const whole = Number(seconds ?? 0);
    const fraction = Number(nanos ?? 0);
    if (Number.isFinite(whole) && Number.isFinite(fraction)) return Math.round(whole * 1000 + fraction / 1e6);
  }
  return undefined;
}

function throwIfAbortedSignal(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DocsChatError('aborted', 'The request was cancelled.');
}

function asAbortError(error: unknown): unknown {
  return isDocsChatError(error) && error.code === 'aborted'
    ? error
    : new DocsChatError('aborted', 'The request was cancelled.', { cause: error });
}

/** Waits `ms`, or rejects with an `aborted` DocsChatError as soon as the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new DocsChatError('aborted', 'The request was cancelled.'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new DocsChatError('aborted', 'The request was cancelled.'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
