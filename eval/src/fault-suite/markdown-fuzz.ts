/**
 * Markdown fuzzing of the ingest parser: thousands of mutated and generated
 * markdown/MDX inputs through parseDocument + chunkDocument in a worker
 * thread; the main thread times every input, so a hang is caught (and the
 * worker terminated) instead of stalling the suite.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { expectThat, type SuiteReport } from './report.js';

const INPUTS = 3000;
const PER_INPUT_LIMIT_MS = 5000;
const SEED = 20_261_121;

interface FuzzOutcome {
  processed: number;
  threw: { index: number; file: string; message: string; preview: string }[];
  hung: { index: number; file: string } | null;
  slowestMs: number;
  slowestFile: string;
  elapsedMs: number;
}

function fuzz(): Promise<FuzzOutcome> {
  const fixturesDir = fileURLToPath(new URL('../../../packages/core/src/markdown/__fixtures__', import.meta.url));
  // Workers do not inherit the tsx loader: a small bootstrap registers it, then loads the TypeScript worker.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(new URL('./markdown-fuzz-worker.ts', import.meta.url).href)}); });`;
  const worker = new Worker(bootstrap, { eval: true, workerData: { fixturesDir, count: INPUTS, seed: SEED } });
  const started = performance.now();
  const outcome: FuzzOutcome = { processed: 0, threw: [], hung: null, slowestMs: 0, slowestFile: '', elapsedMs: 0 };
  let current: { index: number; file: string; at: number } | null = null;
  return new Promise((resolve, reject) => {
    const watchdog = setInterval(() => {
      if (current && performance.now() - current.at > PER_INPUT_LIMIT_MS) {
        outcome.hung = { index: current.index, file: current.file };
        void worker.terminate();
      }
    }, 250);
    const finish = (): void => {
      clearInterval(watchdog);
      outcome.elapsedMs = performance.now() - started;
      resolve(outcome);
    };
    worker.on('message', (message: { type: string; index: number; file: string; message: string; preview: string }) => {
      if (message.type === 'start') current = { index: message.index, file: message.file, at: performance.now() };
      else if (message.type === 'done' || message.type === 'threw') {
        const took = current ? performance.now() - current.at : 0;
        if (took > outcome.slowestMs) Object.assign(outcome, { slowestMs: took, slowestFile: current?.file ?? '' });
        outcome.processed += 1;
        if (message.type === 'threw')
          outcome.threw.push({ index: message.index, file: message.file, message: message.message, preview: message.preview });
        current = null;
      } else if (message.type === 'finished') {
        void worker.terminate();
      }
    });
    worker.on('error', (error) => {
      clearInterval(watchdog);
      reject(error);
    });
    worker.on('exit', finish);
  });
}

export async function runMarkdownFuzz(report: SuiteReport): Promise<void> {
  let outcome: FuzzOutcome | undefined;
  await report.check(
    'bad input',
    `markdown fuzzing: ${INPUTS} random and mutated markdown/MDX inputs (seed ${SEED}) each finish parseDocument + chunkDocument within ${PER_INPUT_LIMIT_MS / 1000} s`,
    async () => {
      outcome = await fuzz();
      expectThat(outcome.hung === null, `input ${outcome.hung?.index} (${outcome.hung?.file}) hung for more than ${PER_INPUT_LIMIT_MS} ms`);
      expectThat(outcome.processed === INPUTS, `only ${outcome.processed} of ${INPUTS} inputs were processed`);
      return `slowest ${outcome.slowestMs.toFixed(0)} ms (${outcome.slowestFile}), all in ${(outcome.elapsedMs / 1000).toFixed(1)} s`;
    },
  );
  await report.check('bad input', 'markdown fuzzing: no input makes the parser or the chunker throw', async () => {
    expectThat(outcome !== undefined, 'the fuzzing did not run');
    const first = outcome.threw[0];
    expectThat(
      !first,
      `${outcome.threw.length} inputs threw; first: #${first?.index} ${first?.file}: ${first?.message} — input starts ${JSON.stringify(first?.preview)}`,
    );
    return `${outcome.processed} inputs`;
  });
}
