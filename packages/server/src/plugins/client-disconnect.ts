/**
 * A signal that aborts when the client goes away before its response is
 * complete. Fastify's `request.signal` follows the request stream's `close`,
 * which Node 20 emits as soon as the request body has been read, so for a POST
 * it aborts before the answer even starts. The response's `close` without a
 * finished write is what "the reader closed the tab" looks like.
 */
import type { FastifyReply } from 'fastify';

export class ClientDisconnectedError extends Error {
  constructor() {
    super('The client closed the connection.');
    this.name = 'ClientDisconnectedError';
  }
}

export function clientDisconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new ClientDisconnectedError());
  });
  return controller.signal;
}

/**
 * One signal for an answer: aborts when the client goes away (as `clientDisconnectSignal`) or when
 * `shutdown` aborts first, with the shutdown's reason. Cheaper than `AbortSignal.any`, whose weak
 * references to every composite signal cost the garbage collector on each request, and its shutdown
 * listener is removed as soon as the response closes, so a long-lived shutdown signal does not
 * collect one listener per answer ever served.
 */
export function answerAbortSignal(reply: FastifyReply, shutdown: AbortSignal): AbortSignal {
  const controller = new AbortController();
  if (shutdown.aborted) {
    controller.abort(shutdown.reason);
    return controller.signal;
  }
  const onShutdown = (): void => controller.abort(shutdown.reason);
  shutdown.addEventListener('abort', onShutdown, { once: true });
  const response = reply.raw;
  response.once('close', () => {
    shutdown.removeEventListener('abort', onShutdown);
    if (!response.writableFinished) controller.abort(new ClientDisconnectedError());
  });
  return controller.signal;
}
