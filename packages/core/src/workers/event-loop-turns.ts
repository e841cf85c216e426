/**
 * One turn of the event loop per piece of main-thread work.
 *
 * Question embeddings come back from the inference thread in batches (up to 8
 * at once), so up to 8 searches resume in the same tick, and each then runs its
 * scoring (a few ms of CPU) before the loop can serve anyone else: about 20 ms
 * during which no stream is written and `/health` waits. A search that awaits
 * `nextTurn()` before such a piece runs it in a loop iteration of its own, so
 * sockets and timers are served between two pieces. Budget (issue 16): the
 * event loop's p99 delay ≤ 20 ms with 200 readers asking new questions.
 */

const waiting: Array<() => void> = [];
let granting = false;

function grant(): void {
  const next = waiting.shift();
  next?.();
  // An immediate queued while immediates run waits for the next loop iteration: I/O and timers come first.
  if (waiting.length > 0) setImmediate(grant);
  else granting = false;
}

/**
 * Resolves in a later loop iteration than any turn granted before it, in the
 * order asked. The caller's work up to its next `await` runs in that turn.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!granting) {
      granting = true;
      setImmediate(grant);
    }
  });
}
