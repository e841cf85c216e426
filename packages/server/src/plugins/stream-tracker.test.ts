import { EventEmitter, getEventListeners, getMaxListeners } from 'node:events';
import type { FastifyReply } from 'fastify';
import { ServerShutdownError } from '../chat/chat-service.js';
import { answerAbortSignal } from './client-disconnect.js';
import { StreamTracker } from './stream-tracker.js';

/** The part of a reply that answerAbortSignal reads: the raw response's `close` event. */
function fakeReply(): { reply: FastifyReply; close(finished: boolean): void } {
  const raw = Object.assign(new EventEmitter(), { writableFinished: false });
  return {
    reply: { raw } as unknown as FastifyReply,
    close(finished) {
      raw.writableFinished = finished;
      raw.emit('close');
    },
  };
}

describe('StreamTracker with many answers in flight', () => {
  it('serves 200 concurrent answers without a "possible memory leak" warning, and each closed answer stops listening', () => {
    const tracker = new StreamTracker();
    // Node warns (MaxListenersExceededWarning on stderr) once a signal has more listeners than its maximum,
    // 10 by default. (Jest's sandboxed `process` does not receive the real warning event.)
    expect(getMaxListeners(tracker.shutdownSignal)).toBe(Number.POSITIVE_INFINITY);
    const replies = Array.from({ length: 200 }, () => fakeReply());
    const signals = replies.map(({ reply }) => answerAbortSignal(reply, tracker.shutdownSignal));
    expect(getEventListeners(tracker.shutdownSignal, 'abort')).toHaveLength(200);

    replies.forEach((reply) => reply.close(true));
    expect(getEventListeners(tracker.shutdownSignal, 'abort')).toHaveLength(0);
    expect(signals.every((signal) => !signal.aborted)).toBe(true);
  });

  it('aborts the answers still running when the grace period runs out, with the shutdown reason', async () => {
    const tracker = new StreamTracker();
    const replies = Array.from({ length: 12 }, () => fakeReply());
    const signals = replies.map(({ reply }) => answerAbortSignal(reply, tracker.shutdownSignal));
    // Half the answers finish within the grace period (and their responses close); the others only end when aborted.
    signals.forEach((signal, index) => {
      const work =
        index % 2 === 0
          ? Promise.resolve().then(() => replies[index]!.close(true))
          : new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      void tracker.track(work);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(tracker.size).toBe(6);

    const cut = await tracker.drain(20);
    expect(cut).toBe(6);
    const aborted = signals.flatMap((signal, index) => (signal.aborted ? [index] : []));
    expect(aborted).toEqual([1, 3, 5, 7, 9, 11]);
    expect(signals[1]!.reason).toBeInstanceOf(ServerShutdownError);
    expect(tracker.size).toBe(0);
  });

  it('a client that goes away aborts only its own answer', () => {
    const tracker = new StreamTracker();
    const first = fakeReply();
    const second = fakeReply();
    const firstSignal = answerAbortSignal(first.reply, tracker.shutdownSignal);
    const secondSignal = answerAbortSignal(second.reply, tracker.shutdownSignal);
    first.close(false);
    expect(firstSignal.aborted).toBe(true);
    expect(secondSignal.aborted).toBe(false);
  });
});
