/**
 * Metrics overhead benchmark (not a test): `node --import tsx eval/src/bench-metrics.ts [--json]`
 *
 * The server CPU that the Prometheus metrics add to each answer: the calls the
 * server makes for one answer (the request counted in the onResponse hook,
 * the answer's histograms and counters, a GET /conversations read counted
 * too), timed over many answers with realistic label variety; and the CPU
 * of one scrape (`registry.metrics()`) once those answers are recorded,
 * default process metrics included. The end-to-end scrape time under load is
 * measured by bench-chat.ts.
 */
import { cpus, loadavg } from 'node:os';
import { ServerMetrics } from '../../packages/server/src/metrics/server-metrics.js';

const ANSWERS = 200_000;
const SCRAPES = 200;

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const metrics = new ServerMetrics({ modelProvider: 'gemini', storeBackend: 'postgres' });
  const finishReasons = ['stop', 'stop', 'stop', 'length', 'interrupted', 'error'];
  const statuses = [200, 200, 200, 200, 429, 503];

  const recordAnswer = (index: number): void => {
    const finishReason = finishReasons[index % finishReasons.length]!;
    metrics.observeRequest('POST', '/chat', statuses[index % statuses.length]!);
    metrics.observeAnswer({
      mode: index % 10 === 0 ? 'selection' : 'general',
      durationMs: 800 + (index % 997),
      retrievalMs: 5 + (index % 40),
      firstTextMs: 200 + (index % 311),
      outOfScope: index % 17 === 0,
      finishReason,
      ...(finishReason === 'error' ? { modelError: 'llm_unavailable' } : {}),
    });
    metrics.observeRequest('GET', '/conversations/:id', 200);
  };

  // Warm-up, so the JIT has compiled the paths measured.
  for (let index = 0; index < 20_000; index += 1) recordAnswer(index);
  const startCpu = cpuMs();
  const startWall = performance.now();
  for (let index = 0; index < ANSWERS; index += 1) recordAnswer(index);
  const perAnswerCpuUs = ((cpuMs() - startCpu) * 1000) / ANSWERS;
  const perAnswerWallUs = ((performance.now() - startWall) * 1000) / ANSWERS;

  await metrics.registry.metrics();
  const scrapeCpuStart = cpuMs();
  const scrapeTimes: number[] = [];
  let bytes = 0;
  for (let scrape = 0; scrape < SCRAPES; scrape += 1) {
    const started = performance.now();
    bytes = (await metrics.registry.metrics()).length;
    scrapeTimes.push(performance.now() - started);
  }
  const scrapeCpuMs = (cpuMs() - scrapeCpuStart) / SCRAPES;
  scrapeTimes.sort((a, b) => a - b);
  const result = {
    answers: ANSWERS,
    perAnswerCpuUs: Number(perAnswerCpuUs.toFixed(2)),
    perAnswerWallUs: Number(perAnswerWallUs.toFixed(2)),
    scrape: {
      cpuMs: Number(scrapeCpuMs.toFixed(2)),
      p50Ms: Number(scrapeTimes[Math.floor(SCRAPES * 0.5)]!.toFixed(2)),
      p95Ms: Number(scrapeTimes[Math.floor(SCRAPES * 0.95)]!.toFixed(2)),
      bytes,
    },
  };
  if (json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  console.log(`metrics CPU per answer: ${result.perAnswerCpuUs} µs (wall ${result.perAnswerWallUs} µs), over ${ANSWERS} answers`);
  console.log(
    `one scrape (registry.metrics()): ${result.scrape.cpuMs} ms CPU, p50 ${result.scrape.p50Ms} ms, p95 ${result.scrape.p95Ms} ms, ${result.scrape.bytes} bytes`,
  );
  console.log(`1-minute load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs (CPU times barely move with it; wall times do)`);
}

await main();
