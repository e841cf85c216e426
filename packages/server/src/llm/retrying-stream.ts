/**
 * Retries, timeouts and stream-cut detection, written once above the
 * providers. A provider only opens one attempt: an async iterable of events
 * for a given AbortSignal, throwing whatever its SDK throws.
 *
 * Retries happen only before the first text event (the reader has seen
 * nothing yet); after it, a failure is a cut stream and the caller keeps the
 * partial answer.
 */
import type { ChatModelEvent } from './chat-model.js';
import { LlmError, isLlmError } from './chat-model.js';
import { DocsChatError, withRetries } from '@docs-chat/core';

export interface RetryPolicy {
  /** Total tries, the first included (3). */
  attempts: number;
  /** Backoff scale in ms; attempt n waits a random time up to base * 2^(n-1), and at least what the server asked. */
  baseDelayMs: number;
  /** When the provider asks to wait longer than this, give up at once: a reader will not wait a minute. */
  maxServerDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxServerDelayMs: 10_000 };

export interface RetryingStreamOptions {
  /** The reader's signal: aborting it aborts the upstream request at once. */
  signal: AbortSignal;
  /** An attempt fails when nothing arrives for this long (first byte or between events). */
  idleTimeoutMs: number;
  /** Maps what the SDK threw to an LlmError (status, RetryInfo, hints). */
  toLlmError(error: unknown): LlmError;
  /** Name of the service for messages, e.g. "Gemini". */
  service: string;
  policy?: RetryPolicy;
  /** Told before each retry (for the server log). */
  onRetry?: RetryListener;
}

/** Called before each retry with the failure that caused it. */
export type RetryListener = (info: { attempt: number; delayMs: number; error: LlmError }) => void;

/**
 * One attempt's signal: aborted by the reader, or by the idle timer. The timer
 * runs only while we wait for the provider, never while the caller is busy
 * with an event (a slow reader must not look like a silent model).
 */
class AttemptControl {
  readonly controller = new AbortController();
  idle = false;
  #timer: NodeJS.Timeout | undefined;
  readonly #onReaderAbort = () => this.controller.abort();

  constructor(
    private readonly readerSignal: AbortSignal,
    private readonly idleTimeoutMs: number,
  ) {
    if (readerSignal.aborted) this.controller.abort();
    else readerSignal.addEventListener('abort', this.#onReaderAbort, { once: true });
  }

  #waiting = false;

  /** Waits for the provider's next event, failing the attempt when nothing comes in time. */
  async next(iterator: AsyncIterator<ChatModelEvent>): Promise<IteratorResult<ChatModelEvent>> {
    // One timer per attempt, re-armed for each wait (refresh() restarts it, even after it fired while
    // the caller was busy): a new timer per streamed event was measurable garbage under load.
    if (this.#timer) this.#timer.refresh();
    else {
      this.#timer = setTimeout(() => {
        if (!this.#waiting) return;
        this.idle = true;
        this.controller.abort();
      }, this.idleTimeoutMs);
    }
    this.#waiting = true;
    try {
      return await iterator.next();
    } finally {
      this.#waiting = false;
    }
  }

  /**
   * Ends the attempt: stops listening to the reader and closes the upstream request if still open.
   * A response read to its end has nothing left to close; aborting it anyway costs a DOMException
   * (stack trace included) and a cascade of abort listeners on every answer.
   */
  dispose(upstreamEnded = false): void {
    clearTimeout(this.#timer);
    this.readerSignal.removeEventListener('abort', this.#onReaderAbort);
    if (!upstreamEnded && !this.controller.signal.aborted) this.controller.abort();
  }
}

interface OpenedStream {
  iterator: AsyncIterator<ChatModelEvent>;
  control: AttemptControl;
  /** Events read before the first text event (and that event itself). */
  buffered: ChatModelEvent[];
  ended: boolean;
}

function abortedError(cause?: unknown): LlmError {
  return new LlmError('aborted', 'The request was cancelled.', cause === undefined ? {} : { cause });
}

export async function* streamWithRetries(
  open: (signal: AbortSignal) => AsyncIterable<ChatModelEvent>,
  options: RetryingStreamOptions,
): AsyncGenerator<ChatModelEvent> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const { signal } = options;

  const classify = (error: unknown, control: AttemptControl): LlmError => {
    if (signal.aborted) return abortedError(error);
    if (control.idle) {
      return new LlmError('llm_unavailable', `${options.service} sent nothing for ${options.idleTimeoutMs} ms.`, {
        retryable: true,
        hint: 'The model may be overloaded; try again, or raise LLM_TIMEOUT_MS for slow local models.',
        cause: error,
      });
    }
    return options.toLlmError(error);
  };

  const openUntilFirstText = async (): Promise<OpenedStream> => {
    const control = new AttemptControl(signal, options.idleTimeoutMs);
    const buffered: ChatModelEvent[] = [];
    let iterator: AsyncIterator<ChatModelEvent> | undefined;
    try {
      iterator = open(control.controller.signal)[Symbol.asyncIterator]();
      for (;;) {
        const next = await control.next(iterator);
        if (next.done) {
          // Closed cleanly with neither text nor finish: nothing was shown, so this attempt may be retried.
          if (!buffered.some((event) => event.type === 'finish')) {
            throw new LlmError('llm_unavailable', `${options.service} closed the stream without an answer.`, {
              retryable: true,
              hint: 'Try again in a moment.',
            });
          }
          return { iterator, control, buffered, ended: true };
        }
        buffered.push(next.value);
        if (next.value.type === 'text') return { iterator, control, buffered, ended: false };
      }
    } catch (error) {
      control.dispose();
      throw classify(error, control);
    }
  };

  let opened: OpenedStream;
  try {
    opened = await withRetries(openUntilFirstText, {
      attempts: policy.attempts,
      baseDelayMs: policy.baseDelayMs,
      maxServerDelayMs: policy.maxServerDelayMs,
      signal,
      isRetryable: (error) => isLlmError(error) && error.retryable,
      retryAfterMs: (error) => (isLlmError(error) ? error.retryAfterMs : undefined),
      onRetry: ({ attempt, delayMs, error }) => {
        if (isLlmError(error)) options.onRetry?.({ attempt, delayMs, error });
      },
    });
  } catch (error) {
    if (error instanceof DocsChatError && error.code === 'aborted') throw abortedError(error);
    throw error;
  }

  const { iterator, control } = opened;
  let upstreamEnded = opened.ended;
  let sawText = false;
  let sawFinish = false;
  try {
    for (const event of opened.buffered) {
      sawText ||= event.type === 'text';
      sawFinish ||= event.type === 'finish';
      yield event;
    }
    if (!opened.ended) {
      for (;;) {
        let next: IteratorResult<ChatModelEvent>;
        try {
          next = await control.next(iterator);
        } catch (error) {
          const mapped = classify(error, control);
          if (mapped.code === 'aborted') throw mapped;
          throw new LlmError('llm_stream_cut', `The answer from ${options.service} stopped part-way (${mapped.message})`, {
            retryable: true,
            hint: 'Ask again; the part already shown was kept.',
            ...(mapped.status === undefined ? {} : { status: mapped.status }),
            cause: error,
          });
        }
        if (next.done) {
          upstreamEnded = true;
          break;
        }
        sawText ||= next.value.type === 'text';
        sawFinish ||= next.value.type === 'finish';
        yield next.value;
      }
    }
    if (sawText && !sawFinish) {
      // The connection closed cleanly after some text, but the provider never said the answer was finished.
      if (signal.aborted) throw abortedError();
      throw new LlmError('llm_stream_cut', `The answer from ${options.service} ended without a finish reason.`, {
        retryable: true,
        hint: 'Ask again; the part already shown was kept.',
      });
    }
  } finally {
    // Stopping early (the reader left, or the caller broke out) must close the upstream request too.
    control.dispose(upstreamEnded);
    await iterator.return?.().catch(() => undefined);
  }
}
