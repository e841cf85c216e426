/** Types of thread-priority.mjs (plain JavaScript, run inside worker threads). */
export declare function lowerThreadPriority(niceness: number | undefined): void;
