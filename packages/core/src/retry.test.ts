import { DocsChatError } from './errors.js';
import { isRetryableError, parseGoogleRetryDelay, parseRetryAfterHeader, withRetries } from './retry.js';
import type { RetryAttemptInfo } from './retry.js';

class StatusError extends Error {
  constructor(
    readonly status: number,
    message = `status ${status}`,
  ) {
    super(message);
  }
}

function failingTimes(times: number, error: () => unknown): { operation: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    operation: async () => {
      calls += 1;
      if (calls <= times) throw error();
      return 'ok';
    },
    calls: () => calls,
  };
}

describe('withRetries', () => {
  it('retries a 503 and returns the later success', async () => {
    const { operation, calls } = failingTimes(2, () => new StatusError(503));
    await expect(withRetries(operation, { baseDelayMs: 1 })).resolves.toBe('ok');
    expect(calls()).toBe(3);
  });

  it('gives up after the number of attempts and throws the last error', async () => {
    const { operation, calls } = failingTimes(5, () => new StatusError(500, 'still down'));
    await expect(withRetries(operation, { attempts: 3, baseDelayMs: 1 })).rejects.toThrow('still down');
    expect(calls()).toBe(3);
  });

  it.each([400, 401, 403, 404])('never retries a %i', async (status) => {
    const { operation, calls } = failingTimes(1, () => new StatusError(status));
    await expect(withRetries(operation, { baseDelayMs: 1 })).rejects.toMatchObject({ status });
    expect(calls()).toBe(1);
  });

  it('waits at least the delay the server asked for, even above the backoff cap', async () => {
    const retries: RetryAttemptInfo[] = [];
    const { operation } = failingTimes(
      1,
      () => new DocsChatError('embedder_rate_limited', 'slow down', { retryable: true, retryAfterMs: 150 }),
    );
    const started = Date.now();
    await withRetries(operation, { baseDelayMs: 1, maxDelayMs: 5, onRetry: (info) => retries.push(info) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.delayMs).toBe(150);
  });

  it('gives up at once when the server asks for a longer wait than allowed', async () => {
    const { operation, calls } = failingTimes(
      1,
      () => new DocsChatError('embedder_rate_limited', 'quota', { retryable: true, retryAfterMs: 90_000 }),
    );
    await expect(withRetries(operation, { maxServerDelayMs: 60_000 })).rejects.toThrow('quota');
    expect(calls()).toBe(1);
  });

  it('keeps full-jitter backoff under base * 2^(attempt-1)', async () => {
    const retries: RetryAttemptInfo[] = [];
    const { operation } = failingTimes(3, () => new StatusError(503));
    await withRetries(operation, { attempts: 4, baseDelayMs: 8, onRetry: (info) => retries.push(info) });
    expect(retries.map((info) => info.attempt)).toEqual([1, 2, 3]);
    retries.forEach((info) => expect(info.delayMs).toBeLessThanOrEqual(8 * 2 ** (info.attempt - 1)));
  });

  it('stops waiting as soon as the signal aborts and says the request was cancelled', async () => {
    const controller = new AbortController();
    const { operation, calls } = failingTimes(1, () => new StatusError(503));
    const started = Date.now();
    setTimeout(() => controller.abort(), 30);
    await expect(withRetries(operation, { signal: controller.signal, retryAfterMs: () => 10_000 })).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(calls()).toBe(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { operation, calls } = failingTimes(0, () => undefined);
    await expect(withRetries(operation, { signal: controller.signal })).rejects.toMatchObject({ code: 'aborted' });
    expect(calls()).toBe(0);
  });

  it('follows a custom retry policy', async () => {
    const { operation, calls } = failingTimes(1, () => new Error('flaky'));
    await expect(withRetries(operation, { baseDelayMs: 1, isRetryable: () => true })).resolves.toBe('ok');
    expect(calls()).toBe(2);
  });
});

describe('isRetryableError', () => {
  it('retries rate limits, server faults and network failures but not client errors or aborts', () => {
    expect(isRetryableError(new StatusError(429))).toBe(true);
    expect(isRetryableError(new StatusError(504))).toBe(true);
    expect(isRetryableError(new StatusError(403))).toBe(false);
    expect(isRetryableError(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }))).toBe(true);
    expect(isRetryableError(new DOMException('This operation was aborted', 'AbortError'))).toBe(false);
    expect(isRetryableError(new Error('bad input'))).toBe(false);
  });
});

describe('parseGoogleRetryDelay', () => {
  const body = (retryDelay: unknown): unknown => ({
    error: {
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure' },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
      ],
    },
  });

  it('reads whole and fractional seconds from an error body', () => {
    expect(parseGoogleRetryDelay(body('42s'))).toBe(42_000);
    expect(parseGoogleRetryDelay(body('1.5s'))).toBe(1500);
    expect(parseGoogleRetryDelay(body({ seconds: 2, nanos: 500_000_000 }))).toBe(2500);
  });

  it('reads the JSON text an ApiError carries as its message', () => {
    expect(parseGoogleRetryDelay(JSON.stringify(body('0.2s')))).toBe(200);
  });

  it('returns undefined when there is no RetryInfo or the body is not JSON', () => {
    expect(parseGoogleRetryDelay({ error: { code: 503, details: [] } })).toBeUndefined();
    expect(parseGoogleRetryDelay('Service Unavailable')).toBeUndefined();
  });
});

describe('parseRetryAfterHeader', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfterHeader('3')).toBe(3000);
    expect(parseRetryAfterHeader('0.2')).toBe(200);
    expect(parseRetryAfterHeader('3', '120')).toBe(120);
    const inTwoSeconds = new Date(Date.now() + 2000).toUTCString();
    expect(parseRetryAfterHeader(inTwoSeconds)).toBeGreaterThan(500);
    expect(parseRetryAfterHeader('soon')).toBeUndefined();
  });
});
