/**
 * The switches both chat stand-ins (Gemini and OpenAI-compatible) share:
 * queued faults, a one-shot cut of the next stream, the delay between events,
 * the reply text and its finish reason. Each stand-in hands `switches` to its
 * tests and reads the current values while it answers.
 */

/** A fault that may apply to several requests in a row. */
export interface QueuedFault {
  /** How many matching requests fail (default 1). */
  times?: number;
}

export interface StreamSettings<Reply> {
  delayMs: number;
  reply: Reply | undefined;
  finishReason: string;
}

export interface StreamSwitches<Fault, Reply> {
  failNext(fault: Fault): void;
  /** The next stream is destroyed after `events` frames. */
  cutStreamAfter(events: number): void;
  setFinishReason(reason: string): void;
  setDelay(ms: number): void;
  setReply(reply: Reply | undefined): void;
}

export interface StreamControls<Fault extends QueuedFault, Reply> extends StreamSettings<Reply> {
  readonly switches: StreamSwitches<Fault, Reply>;
  /** The first queued fault that `applies`, counted down and dropped when used up; undefined when none applies. */
  takeFault(applies: (fault: Fault) => boolean): Fault | undefined;
  /** The pending cut, cleared: a cut applies to one stream only. */
  takeCut(): number | undefined;
  /** Back to `defaults()`, with no faults and no cut pending. */
  reset(): void;
}

export function createStreamControls<Fault extends QueuedFault, Reply>(
  defaults: () => StreamSettings<Reply>,
): StreamControls<Fault, Reply> {
  let faults: Fault[] = [];
  let cutAfter: number | undefined;
  const controls: StreamControls<Fault, Reply> = {
    ...defaults(),
    switches: {
      failNext(fault) {
        faults.push(fault);
      },
      cutStreamAfter(events) {
        cutAfter = events;
      },
      setFinishReason(reason) {
        controls.finishReason = reason;
      },
      setDelay(ms) {
        controls.delayMs = ms;
      },
      setReply(reply) {
        controls.reply = reply;
      },
    },
    takeFault(applies) {
      const index = faults.findIndex(applies);
      if (index === -1) return undefined;
      const fault = faults[index] as Fault;
      const times = (fault.times ?? 1) - 1;
      if (times > 0) faults[index] = { ...fault, times };
      else faults.splice(index, 1);
      return fault;
    },
    takeCut() {
      const cut = cutAfter;
      cutAfter = undefined;
      return cut;
    },
    reset() {
      faults = [];
      cutAfter = undefined;
      Object.assign(controls, defaults());
    },
  };
  return controls;
}
