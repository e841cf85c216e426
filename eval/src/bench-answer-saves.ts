/**
 * What saving answers costs the server (not a test): `node --import tsx eval/src/bench-answer-saves.ts
 * [--rate N] [--seconds S] [--rounds R] [--json]`. Needs PostgreSQL (TEST_DATABASE_URL, or 127.0.0.1:5432); works in a
 * schema of its own and drops it.
 *
 * Answers end at random moments, N a second on average (190 is the rate of the chat benchmark at 200 readers),
 * each with a final save the size of a real one (a 1.5 KB answer, five sources, token usage). Each round saves
 * them once one statement per answer, as the server did before 2026-12-01, and once through the conversation
 * gateway, which writes the saves that come close together as one statement (save-batcher.ts). It prints this
 * process's CPU per save for both: the server's share of an answer's final save, with the pacing of the
 * arrivals (the same both ways) included. A warm-up of both ways comes first and is not reported.
 */
import { randomUUID } from 'node:crypto';
import { ConversationGateway } from '../../packages/server/src/chat/conversation-gateway.js';
import type { FinishedMessage } from '../../packages/server/src/conversations/conversation-store.js';
import { createConversationStore } from '../../packages/server/src/conversations/create-conversation-store.js';
import { createTestSchema, findTestPostgres, NO_TEST_POSTGRES_REASON } from '../../packages/server/src/conversations/test-postgres.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(name);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} takes a positive number.`);
  return value;
};
const rate = option('--rate', 190);
const seconds = option('--seconds', 12);
const rounds = option('--rounds', 2);
const json = args.includes('--json');

const databaseUrl = await findTestPostgres();
if (!databaseUrl) {
  console.error(`bench-answer-saves needs PostgreSQL: ${NO_TEST_POSTGRES_REASON}.`);
  process.exit(1);
}
const schema = await createTestSchema(databaseUrl);
const store = await createConversationStore({ databaseUrl: schema.url, dataDir: ':memory:' });
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const gateway = new ConversationGateway(store, quiet);
await gateway.migrate();

const answer: FinishedMessage = {
  content: 'To set up the store, call configureStore with your root reducer; middleware and enhancers are optional. '.repeat(15),
  status: 'complete',
  sources: Array.from({ length: 5 }, (_, index) => ({
    file: `docs/guide/page-${index}.md`,
    title: `Guide page ${index}`,
    heading: 'Configuring the store',
    heading_path: ['Guide', `Page ${index}`, 'Configuring the store'],
    url: `/docs/guide/page-${index}#configuring-the-store`,
    score: 0.5,
  })),
  finishReason: 'stop',
  usage: { prompt_tokens: 900, completion_tokens: 300, total_tokens: 1200 },
};

/** Opens `count` answers (question and pending answer rows), as the server does before it streams. */
async function openAnswers(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const answerId = randomUUID();
    ids.push(answerId);
    await store.startTurn({
      conversationId: randomUUID(),
      newConversation: true,
      mode: 'general',
      question: { id: randomUUID(), content: 'How do I configure the store?' },
      answerId,
    });
  }
  return ids;
}

/** Saves every answer at Poisson-spaced moments; returns this process's CPU per save, in ms. */
async function saveAll(ids: readonly string[], save: (id: string) => Promise<void>): Promise<number> {
  const cpuBefore = process.cpuUsage();
  const saves: Promise<void>[] = [];
  let due = performance.now();
  for (const id of ids) {
    due += -Math.log(1 - Math.random()) * (1000 / rate);
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    saves.push(save(id));
  }
  await Promise.all(saves);
  const cpu = process.cpuUsage(cpuBefore);
  return (cpu.user + cpu.system) / 1000 / ids.length;
}

const count = Math.round(rate * seconds);
if (!json) console.log(`${count} final saves per way per round, ${rate} a second on average, Postgres in schema ${schema.schema}.`);
const results: { round: number; oneStatementEachMs: number; batchedMs: number }[] = [];
try {
  // Warm-up (the driver's prepared statements, the JIT), not reported.
  const warmUp = Math.round(count / 4);
  await saveAll(await openAnswers(warmUp), (id) => gateway.run((db) => db.finishMessage(id, answer)));
  await saveAll(await openAnswers(warmUp), (id) => gateway.finishAnswer(id, answer));
  for (let round = 1; round <= rounds; round += 1) {
    const one = await saveAll(await openAnswers(count), (id) => gateway.run((db) => db.finishMessage(id, answer)));
    const batched = await saveAll(await openAnswers(count), (id) => gateway.finishAnswer(id, answer));
    results.push({ round, oneStatementEachMs: Number(one.toFixed(3)), batchedMs: Number(batched.toFixed(3)) });
    if (!json) console.log(`round ${round}: CPU per final save ${one.toFixed(3)} ms one statement each, ${batched.toFixed(3)} ms batched`);
  }
} finally {
  await gateway.close();
  await schema.drop();
}
if (json) console.log(JSON.stringify({ benchmark: 'answer-saves', savesPerRound: count, perSecond: rate, rounds: results }));
