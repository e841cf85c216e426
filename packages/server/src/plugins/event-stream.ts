/**
 * Writes protocol events to a PassThrough that Fastify sends as the reply body.
 * Sending a stream (instead of hijacking the reply) keeps the CORS and
 * rate-limit headers and lets `request.signal` abort when the reader leaves.
 * A heartbeat comment goes out whenever nothing was written for a while, so
 * proxies do not drop a stream while the model is thinking.
 */
import { PassThrough, type Writable } from 'node:stream';
import { encodeChatStreamEvent, SSE_HEARTBEAT, type ChatStreamEvent } from '@docs-chat/core/protocol';

export interface EventStreamWriter {
  readonly body: PassThrough;
  /** Pipes every event into the body, then ends it; never throws. */
  pump(events: AsyncIterable<ChatStreamEvent>): Promise<void>;
}

/**
 * After the first token, writes are at most this often: tokens that arrive within the window go out as one
 * write. Shorter than a display frame, so the reader sees the same stream, with several times fewer
 * syscalls and chunks to parse on both ends when the model streams fast.
 */
export const TOKEN_COALESCE_MS = 10;

/**
 * The HTTP response the body is piped into. The stream's last events and the end of its chunked body are then
 * held together and sent in one write: the last write happens in one turn of the event loop and the end in the
 * next, so uncorked they would be two (a packet of five bytes of its own). Budget: server CPU per answer
 * <= 2.0 ms at 200 readers (issue 16), where socket writes were the largest native cost in the profile; the
 * saving of this one write was smaller than the benchmark host's drift (benchmarks.md, 2026-11-30, late night).
 */
export type CorkableOutput = Pick<Writable, 'cork' | 'uncork'>;

export function createEventStreamWriter(
  heartbeatMs: number,
  onError: (error: unknown) => void,
  coalesceMs = TOKEN_COALESCE_MS,
  output?: CorkableOutput,
): EventStreamWriter {
  const body = new PassThrough();
  let heartbeat: NodeJS.Timeout | undefined;
  // Events produced in the same turn of the event loop (several tokens often arrive in one
  // network read) go out as one write; after the first token, so do those of the next few ms.
  let pending = '';
  let flushScheduled = false;
  let flushTimer: NodeJS.Timeout | undefined;
  let firstTokenSent = false;
  let lastFlushAt = 0;

  const writable = (): boolean => !body.destroyed && !body.writableEnded;
  const flush = (): void => {
    flushScheduled = false;
    flushTimer = undefined;
    lastFlushAt = performance.now();
    if (pending.length > 0 && writable()) body.write(pending);
    pending = '';
  };
  const enqueue = (text: string, isToken = false): void => {
    pending += text;
    const isFirstToken = isToken && !firstTokenSent;
    if (isToken) firstTokenSent = true;
    if (flushScheduled) return;
    flushScheduled = true;
    // Everything up to and including the first token goes out at once: that is the latency a reader feels.
    const wait = firstTokenSent && !isFirstToken ? coalesceMs - (performance.now() - lastFlushAt) : 0;
    if (wait <= 0) setImmediate(flush);
    else flushTimer = setTimeout(flush, wait);
  };
  // One timer per stream, pushed back on every event with refresh() rather than a new timer per event.
  const armHeartbeat = (): void => {
    if (heartbeat) {
      heartbeat.refresh();
      return;
    }
    heartbeat = setTimeout(() => {
      if (!writable()) return;
      enqueue(SSE_HEARTBEAT);
      armHeartbeat();
    }, heartbeatMs);
    heartbeat.unref();
  };

  return {
    body,
    async pump(events) {
      armHeartbeat();
      try {
        for await (const event of events) {
          // After the reader left, keep iterating so the answer is still stored, but write nothing.
          if (!writable()) continue;
          enqueue(encodeChatStreamEvent(event), event.type === 'token');
          armHeartbeat();
        }
      } catch (error) {
        onError(error);
        if (writable()) {
          enqueue(
            encodeChatStreamEvent({
              type: 'error',
              code: 'internal_error',
              message: 'Something went wrong while answering; please try again.',
              retryable: true,
            }),
          );
        }
      } finally {
        if (heartbeat) clearTimeout(heartbeat);
        if (flushTimer) clearTimeout(flushTimer);
        // The pipe writes the last events now and ends the response a tick later; released after both.
        output?.cork();
        flush();
        if (writable()) body.end();
        if (output) setImmediate(() => output.uncork());
      }
    },
  };
}
