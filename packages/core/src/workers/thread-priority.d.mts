/** Types of thread-priority.mjs (plain JavaScript, run inside worker threads). */
export declare function lowerThreadPriority(
  niceness: number | undefined,
): { lowered: true; niceness: number } | { lowered: false; reason: string };
