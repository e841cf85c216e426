/**
 * Loaded into the benchmarked server with `--import` by bench-chat.ts (never shipped): the main thread's event-loop
 * delay over a whole benchmark phase, from one `perf_hooks.monitorEventLoopDelay` histogram. The server's own
 * `/metrics` gauge (prom-client) starts afresh at every scrape, so it only gives one-second windows.
 *
 * Each SIGUSR2 writes the histogram gathered since the previous one to `$DOCS_CHAT_BENCH_LOOP_DIR/<pid>.json`
 * (with a serial number, so the bench knows it is new) and starts a new one: the bench signals at a phase's start
 * and end. Worker threads and processes started without this module (the PGlite database) measure nothing.
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
  const write = () => {
    const ms = (nanoseconds) => nanoseconds / 1e6;
    // Written aside and renamed, so the bench never reads half a file.
    writeFileSync(
      `${file}.new`,
      JSON.stringify({
        serial,
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
      }),
    );
    renameSync(`${file}.new`, file);
  };
  write();
  process.on('SIGUSR2', () => {
    serial += 1;
    write();
    histogram.reset();
  });
}
