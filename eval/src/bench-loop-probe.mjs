/**
 * Loaded into the benchmarked server with `--import` by bench-chat.ts (never shipped): the main thread's event-loop
 * delay over a whole benchmark phase, from one `perf_hooks.monitorEventLoopDelay` histogram. The server's own
 * `/metrics` gauge (prom-client) starts afresh at every scrape, so it only gives one-second windows.
 *
 * Each SIGUSR2 writes the histogram gathered since the previous one to `$DOCS_CHAT_BENCH_LOOP_DIR/<pid>.json`
 * (with a serial number, so the bench knows it is new) and starts a new one: the bench signals at a phase's start
 * and end. Worker threads and processes started without this module (the PGlite database) measure nothing.
 *
 * It also samples `process.memoryUsage()` every 250 ms and writes the sample of the phase's largest RSS, so a
 * memory peak can be told apart: the main thread's JavaScript heap, memory held for its buffers (external), or
 * the rest (code, and the worker threads' heaps and WebAssembly memory, which only RSS counts).
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const directory = process.env.DOCS_CHAT_BENCH_LOOP_DIR;
if (isMainThread && directory) {
  // The same sampling interval as prom-client's gauge, so the two read alike (the bench subtracts it).
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const file = path.join(directory, `${process.pid}.json`);
  let serial = 0;
  let peakMemory = process.memoryUsage();
  setInterval(() => {
    const now = process.memoryUsage();
    if (now.rss > peakMemory.rss) peakMemory = now;
  }, 250).unref();
  const write = () => {
    const ms = (nanoseconds) => nanoseconds / 1e6;
    // MiB, as the bench reads VmRSS.
    const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
    // Written aside and renamed, so the bench never reads half a file.
    writeFileSync(
      `${file}.new`,
      JSON.stringify({
        serial,
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
        memoryAtPeak: {
          rssMb: mb(peakMemory.rss),
          heapUsedMb: mb(peakMemory.heapUsed),
          heapTotalMb: mb(peakMemory.heapTotal),
          externalMb: mb(peakMemory.external),
        },
      }),
    );
    renameSync(`${file}.new`, file);
  };
  write();
  process.on('SIGUSR2', () => {
    serial += 1;
    write();
    histogram.reset();
    peakMemory = process.memoryUsage();
  });
}
