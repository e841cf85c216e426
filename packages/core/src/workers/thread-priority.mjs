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
 * Returns what was done; never throws: a thread that keeps its priority still
 * works, only less politely.
 */
export function lowerThreadPriority(niceness) {
  if (!Number.isInteger(niceness) || niceness <= 0) return { lowered: false, reason: 'not asked' };
  if (process.platform !== 'linux') return { lowered: false, reason: `${process.platform} sets priorities per process` };
  try {
    const current = os.getPriority();
    if (current >= niceness) return { lowered: false, reason: `already at nice ${current}` };
    os.setPriority(Math.min(19, niceness));
    return { lowered: true, niceness: os.getPriority() };
  } catch (error) {
    return { lowered: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
