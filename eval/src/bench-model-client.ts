/**
 * What reading the model's answer stream costs the server (not a test): `node --import tsx
 * eval/src/bench-model-client.ts [--answers N] [--concurrency C] [--rounds R] [--json]`.
 *
 * The Gemini stand-in runs in a process of its own (bench-gemini-stand-in.ts, streaming without delay, as in
 * the chat benchmark), and this process streams N answers through the server's Gemini answer client
 * (gemini-sse-stream.ts), C at a time, with a prompt the size of a real one (question, instructions and
 * about 4 KB of sources). It prints this process's CPU per answer for each round: sending the request, reading
 * and framing the events and parsing their JSON, which is the model's share of the server's CPU per answer.
 * A warm-up round comes first and is not reported.
 */
import { createGeminiStreamClient } from '../../packages/server/src/llm/gemini-sse-stream.js';
import { startStandInProcess } from './gemini-stand-in-process.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} takes a positive whole number.`);
  return value;
};
const answers = option('--answers', 3000);
const concurrency = option('--concurrency', 50);
const rounds = option('--rounds', 5);
const json = args.includes('--json');

const standIn = await startStandInProcess();
const { url, apiKey } = standIn;

const sources = Array.from(
  { length: 5 },
  (_, index) =>
    `[${index + 1}] Guide › Store setup › Part ${index + 1}\n${'Call configureStore with the root reducer; middleware is optional. '.repeat(12)}`,
).join('\n\n');
const body = {
  contents: [{ role: 'user', parts: [{ text: `Sources:\n\n${sources}\n\nQuestion: How do I configure the store?` }] }],
  systemInstruction: { parts: [{ text: 'Answer only from the numbered sources and cite them as [n].' }] },
  generationConfig: { temperature: 0.2, maxOutputTokens: 1024 },
};
const client = createGeminiStreamClient({ apiKey, model: 'gemini-flash-latest', baseUrl: url });

/** Streams `count` answers, `concurrency` at a time; returns this process's CPU per answer (ms) and events per answer. */
async function streamAll(count: number): Promise<{ cpuMs: number; events: number }> {
  let started = 0;
  let events = 0;
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started += 1;
        for await (const chunk of client.stream(body, new AbortController().signal)) if (chunk.candidates) events += 1;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { cpuMs: (cpu.user + cpu.system) / 1000 / count, events: events / count };
}

const results: { round: number; cpuMsPerAnswer: number }[] = [];
let eventsPerAnswer = 0;
try {
  await streamAll(Math.max(200, Math.round(answers / 4)));
  if (!json) console.log(`${answers} answers per round, ${concurrency} at a time, from the Gemini stand-in at ${url}.`);
  for (let round = 1; round <= rounds; round += 1) {
    const { cpuMs, events } = await streamAll(answers);
    eventsPerAnswer = events;
    results.push({ round, cpuMsPerAnswer: Number(cpuMs.toFixed(3)) });
    if (!json) console.log(`round ${round}: CPU per streamed answer ${cpuMs.toFixed(3)} ms (${events.toFixed(1)} events an answer)`);
  }
} finally {
  client.close();
  await standIn.stop();
}
const sorted = results.map((result) => result.cpuMsPerAnswer).sort((left, right) => left - right);
const median = sorted[Math.floor(sorted.length / 2)]!;
if (json)
  console.log(
    JSON.stringify({ benchmark: 'model-client', answers, concurrency, eventsPerAnswer, medianCpuMsPerAnswer: median, rounds: results }),
  );
else
  console.log(
    `median over ${rounds} rounds: ${median.toFixed(3)} ms CPU per answer (range ${sorted[0]!.toFixed(3)}-${sorted.at(-1)!.toFixed(3)})`,
  );
