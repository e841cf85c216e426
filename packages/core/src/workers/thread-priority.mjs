// Lowers the scheduling priority of the calling worker thread, so that on a
// busy machine the event loop that serves readers (streams, /health) runs
// before model inference. Plain JavaScript: worker threads load it without a
// TypeScript loader.
//
// Linux keeps a nice value per thread, and setpriority(PRIO_PROCESS, 0), which
// `os.setPriority(n)` calls, changes the calling thread's only. macOS and
// Windows apply the same call to the whole process, which would slow the event
// loop too, so there the priority is left alone.
import os from 'node:os';

/**
 * Sets this thread's nice value (0-19; higher yields more) on Linux, never
 * below the one it has (a server started with `nice` stays at least as nice).
 * Never throws: a thread that keeps its priority still works, only less politely.
 */
export function lowerThreadPriority(niceness) {
  if (!Number.isInteger(niceness) || niceness <= 0 || process.platform !== 'linux') return;
  try {
    if (os.getPriority() < niceness) os.setPriority(Math.min(19, niceness));
  } catch {
    // Not allowed here: inference keeps the event loop's priority.
  }
}
