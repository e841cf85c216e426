/**
 * Questions sent over the cluster's IPC channel (primary to server process, or
 * back), matched to their replies by request id, each with a deadline: a
 * process that does not answer in time must never hold up the one that asked.
 */
export class PendingReplies<T> {
  #nextRequestId = 1;
  readonly #waiting = new Map<number, (reply: T | undefined) => void>();

  /** Sends the question with a fresh request id; resolves with the reply, or with undefined after `timeoutMs`. */
  ask(send: (requestId: number) => void, timeoutMs: number): Promise<T | undefined> {
    const requestId = this.#nextRequestId++;
    return new Promise<T | undefined>((resolve) => {
      const timer = setTimeout(() => this.#waiting.get(requestId)?.(undefined), timeoutMs);
      this.#waiting.set(requestId, (reply) => {
        clearTimeout(timer);
        this.#waiting.delete(requestId);
        resolve(reply);
      });
      send(requestId);
    });
  }

  /** Hands a reply to the question that is waiting for it (a late reply finds none and is dropped). */
  settle(requestId: number, reply: T): void {
    this.#waiting.get(requestId)?.(reply);
  }
}
