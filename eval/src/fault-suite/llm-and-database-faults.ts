/**
 * Faults around a running answer: the conversation database (Postgres, or the
 * embedded PGlite's process) going away and coming back while readers stream,
 * the model answering 429 / 503 or cutting its stream, and a reader leaving
 * mid-answer.
 */
import { readFileSync } from 'node:fs';
import type { ChatStreamEvent, ErrorEvent, MetaEvent } from '@docs-chat/core/protocol';
import { expectThat } from './report.js';
import { askToEnd, openChat } from './chat-client.js';
import { processTree } from './processes.js';
import { chatBody, getConversation, health, MODEL_QUESTIONS, until, type SuiteContext } from './suite-context.js';

const isToken = (event: ChatStreamEvent): boolean => event.type === 'token';

function ask(context: SuiteContext, message: string, extra: Record<string, unknown> = {}) {
  context.sent.add(message);
  return askToEnd(context.main.url, chatBody(message, extra));
}

/** Model stream requests the stand-in received since its last reset. */
function streamRequests(context: SuiteContext): number {
  return context.gemini.requests.filter((request) => request.path.endsWith(':streamGenerateContent')).length;
}

/** Asks until an answer is whole and saved (the server re-tries its database at a bounded pace after a failure). */
async function untilPersisted(context: SuiteContext, what: string, question: string): Promise<MetaEvent> {
  let meta: MetaEvent | undefined;
  await until(
    what,
    async () => {
      const reply = await ask(context, question);
      meta = reply.meta();
      return meta?.persisted === true && reply.last()?.type === 'done';
    },
    15_000,
    500,
  );
  return meta!;
}

/**
 * How the checks take the main server's conversation database away and give it back: a TCP relay in front of
 * PostgreSQL, or signals to the embedded database's own process (PGlite runs in a child of the server).
 */
interface DatabaseSwitch {
  /** Named in the report's sentences. */
  name: string;
  /** The outage, as the first sentence tells it. */
  outage: string;
  /** The database no longer answers (connections dropped, or its process frozen). */
  down(): void;
  up(): void;
  /** The database accepts connections but answers nothing. */
  stall(): void;
  resume(): void;
  /** The rows of a conversation counted in SQL; null when the suite cannot reach the database itself. */
  countMessages(conversationId: string): Promise<number | null>;
}

/** The embedded database's process under the main server (its pid changes when the server restarts it). */
function pgliteProcessOf(serverPid: number): number {
  const pid = processTree(serverPid).find((candidate) => {
    try {
      return readFileSync(`/proc/${candidate}/cmdline`, 'utf8').includes('pglite-process.mjs');
    } catch {
      return false;
    }
  });
  if (pid === undefined) throw new Error(`no embedded database process runs under the server (pid ${serverPid})`);
  return pid;
}

function databaseSwitch(context: SuiteContext): DatabaseSwitch {
  const { relay, sql, main } = context;
  if (relay && sql)
    return {
      name: 'Postgres',
      outage: 'Postgres stopping',
      down: () => (relay.up = false),
      up: () => (relay.up = true),
      stall: () => (relay.stalled = true),
      resume: () => (relay.stalled = false),
      countMessages: async (conversationId) => {
        const [row] = await sql<
          { count: string }[]
        >`select count(*)::text as count from messages where conversation_id = ${conversationId}`;
        return Number(row?.count);
      },
    };
  // SIGSTOP freezes the process with its socket open: statements are accepted and never answered, as from a
  // database server that hangs; SIGCONT lets it go on where it stopped.
  let frozen: number | null = null;
  const freeze = () => {
    frozen = pgliteProcessOf(main.pid);
    process.kill(frozen, 'SIGSTOP');
  };
  const thaw = () => {
    if (frozen !== null) process.kill(frozen, 'SIGCONT');
    frozen = null;
  };
  return {
    name: 'the embedded database (PGlite)',
    outage: "the embedded database's process (PGlite) frozen with SIGSTOP",
    down: freeze,
    up: thaw,
    stall: freeze,
    resume: thaw,
    countMessages: async () => null,
  };
}

export async function runDatabaseOutage(context: SuiteContext): Promise<void> {
  const { report, main, gemini } = context;
  const database = databaseSwitch(context);
  const sentences = [
    `${database.outage} while 4 readers stream: every answer keeps streaming to its done event, and the server warns that it could not be saved`,
    '/health during the outage says degraded with status 200 and postgres down (the server treats its conversation database as optional)',
    'a question during the outage is answered with meta.persisted=false and a conversation_not_saved warning',
    `once ${database.name} is back, /health is healthy again and later messages are stored (read back through GET /conversations/:id${context.sql ? ' and counted in SQL' : ''})`,
    `${database.name} accepting connections but no longer answering: after the first statement waits out its deadline, later questions are answered at once, unsaved and told so, and once it answers again answers are saved`,
  ];
  gemini.reset();
  gemini.setDelay(60);
  try {
    await report.check('faults', sentences[0]!, async () => {
      const readers = await Promise.all(
        MODEL_QUESTIONS.map((question) => (context.sent.add(question), openChat(main.url, chatBody(question)))),
      );
      for (const reader of readers) {
        const meta = (await reader.waitFor((event) => event.type === 'meta')) as MetaEvent;
        expectThat(meta.persisted, 'an answer started before the outage was already unsaved');
        await reader.waitFor(isToken);
      }
      expectThat(
        streamRequests(context) === readers.length,
        `${streamRequests(context)} of ${readers.length} questions reached the model (the others were answered without it)`,
      );
      database.down();
      await Promise.all(readers.map((reader) => reader.finished));
      for (const reader of readers) {
        expectThat(reader.last()?.type === 'done', `an answer ended with ${reader.last()?.type} instead of done`);
        expectThat(reader.text().length > 20, 'an answer streamed almost nothing');
        const warned = reader.events.some((event) => event.type === 'warning' && event.code === 'conversation_not_saved');
        expectThat(
          warned,
          `an answer cut from its database finished without the conversation_not_saved warning (events: ${reader.events.map((event) => event.type).join(',')})`,
        );
      }
      return `${readers.length} answers of ${readers.map((reader) => reader.text().length).join('/')} characters`;
    });
    gemini.setDelay(0);

    await report.check('faults', sentences[1]!, async () => {
      // /health serves a dependency check up to HEALTH_CACHE_MS (1 s) old: the outage shows within that.
      let during = await health(main.url);
      await until('postgres down in /health', async () => (during = await health(main.url)).body.status !== 'healthy', 5_000, 100).catch(
        () => undefined,
      );
      expectThat(during.status === 200, `/health answered ${during.status}`);
      expectThat(during.body.status === 'degraded', `/health said ${during.body.status}`);
      expectThat(during.body.services.postgres.status === 'down', `postgres reported ${during.body.services.postgres.status}`);
      return `200 ${during.body.status}`;
    });

    await report.check('faults', sentences[2]!, async () => {
      const reply = await ask(context, 'How do I write a lock in Tidewater?');
      expectThat(reply.status === 200, `HTTP ${reply.status}`);
      const meta = reply.meta();
      expectThat(meta && meta.persisted === false, `meta.persisted=${meta?.persisted}`);
      expectThat(
        reply.events.some((event) => event.type === 'warning' && event.code === 'conversation_not_saved'),
        'no conversation_not_saved warning',
      );
      expectThat(reply.last()?.type === 'done', `ended with ${reply.last()?.type}`);
    });
  } finally {
    database.up();
    gemini.setDelay(0);
  }

  await report.check('faults', sentences[3]!, async () => {
    await until('postgres up in /health', async () => (await health(main.url)).body.status === 'healthy', 15_000, 250);
    const meta = await untilPersisted(context, 'a persisted answer', 'How do I persist the harbor state?');
    const followUp = await ask(context, 'And can I have several harbors?', { conversation_id: meta.conversation_id });
    expectThat(followUp.meta()?.persisted === true, 'the follow-up was not persisted');
    const stored = await getConversation(main.url, meta.conversation_id);
    expectThat(stored.status === 200, `GET /conversations answered ${stored.status}`);
    const roles = stored.body.messages.map((message) => `${message.role}:${message.status}`);
    expectThat(
      roles.join(',') === 'user:complete,assistant:complete,user:complete,assistant:complete',
      `stored messages ${roles.join(',')}`,
    );
    const counted = await database.countMessages(meta.conversation_id);
    if (counted === null) return '4 messages via GET';
    expectThat(counted === 4, `SQL counted ${counted} rows`);
    return '4 messages via GET and SQL';
  });

  await report.check('faults', sentences[4]!, async () => {
    database.stall();
    try {
      const first = performance.now();
      const held = await ask(context, 'How do I open a harbor?');
      const heldMs = performance.now() - first;
      expectThat(held.last()?.type === 'done', `the first answer during the stall ended with ${held.last()?.type}`);
      expectThat(held.meta()?.persisted === false, 'the first answer during the stall says it was saved');
      const laterMs: number[] = [];
      for (const question of ['How do I close a harbor?', 'What errors can openHarbor throw?', 'How do I persist the harbor state?']) {
        const started = performance.now();
        const reply = await ask(context, question);
        laterMs.push(performance.now() - started);
        expectThat(reply.last()?.type === 'done', `an answer during the stall ended with ${reply.last()?.type}`);
        expectThat(reply.meta()?.persisted === false, 'an answer during the stall says it was saved');
        expectThat(
          reply.events.some((event) => event.type === 'warning' && event.code === 'conversation_not_saved'),
          'an answer during the stall came without the conversation_not_saved warning',
        );
      }
      // Each would otherwise wait the 5 s statement deadline before its answer starts.
      expectThat(
        Math.max(...laterMs) < 2_000,
        `later answers took ${laterMs.map((ms) => Math.round(ms)).join('/')} ms (the first ${Math.round(heldMs)} ms)`,
      );
      database.resume();
      const meta = await untilPersisted(context, 'a persisted answer after the stall', 'Is Tidewater tied to a UI framework?');
      const stored = await getConversation(main.url, meta.conversation_id);
      expectThat(stored.status === 200 && stored.body.messages.length === 2, `GET /conversations answered ${stored.status}`);
      return `first answer ${Math.round(heldMs)} ms, later ${laterMs.map((ms) => Math.round(ms)).join('/')} ms, saved again after the stall`;
    } finally {
      database.resume();
    }
  });

  if (!context.relay) await runEmbeddedDatabaseCrash(context);
}

/** PGlite only: its process killed outright, as by the kernel's OOM killer, is started again by the server. */
async function runEmbeddedDatabaseCrash(context: SuiteContext): Promise<void> {
  const { report, main } = context;
  await report.check(
    'faults',
    "the embedded database's process (PGlite) killed with SIGKILL: the server starts a new one, logs the exit and the return once each, and answers are saved again",
    async () => {
      const killed = pgliteProcessOf(main.pid);
      const linesBefore = main.stdout().length;
      process.kill(killed, 'SIGKILL');
      const meta = await untilPersisted(context, 'a persisted answer after the restart', 'What options does openHarbor accept?');
      const restarted = pgliteProcessOf(main.pid);
      expectThat(restarted !== killed, `the database process is still pid ${killed}`);
      const stored = await getConversation(main.url, meta.conversation_id);
      expectThat(stored.status === 200 && stored.body.messages.length === 2, `GET /conversations answered ${stored.status}`);
      const lines = main
        .stdout()
        .slice(linesBefore)
        .split('\n')
        .filter((line) => line.includes('embedded conversation database'));
      const ended = lines.filter((line) => line.includes('process ended')).length;
      const back = lines.filter((line) => line.includes('is back')).length;
      expectThat(ended === 1 && back === 1, `log lines about the database: ${ended} "ended", ${back} "back"`);
      return `pid ${killed} killed, pid ${restarted} started, answers saved again`;
    },
  );
}

export async function runModelFaults(context: SuiteContext): Promise<void> {
  const { report, main, gemini } = context;

  await report.check('faults', 'the model answering 429 once (with RetryInfo) is retried and the reader gets a whole answer', async () => {
    gemini.reset();
    gemini.failNext({ status: 429, retryDelay: '0.2s', method: 'streamGenerateContent' });
    const reply = await ask(context, MODEL_QUESTIONS[1]);
    expectThat(reply.last()?.type === 'done', `ended with ${reply.last()?.type}`);
    expectThat(streamRequests(context) === 2, `${streamRequests(context)} model requests`);
    return '2 model requests, done';
  });

  await report.check(
    'faults',
    'the model answering 429 every time ends in an error event "Service temporarily busy..." after 3 attempts, and the question stays stored',
    async () => {
      gemini.reset();
      gemini.failNext({ status: 429, retryDelay: '0.1s', times: 10, method: 'streamGenerateContent' });
      const reply = await ask(context, MODEL_QUESTIONS[2]);
      const last = reply.last() as ErrorEvent | undefined;
      expectThat(last?.type === 'error', `ended with ${last?.type}`);
      expectThat(last.message.startsWith('Service temporarily busy'), `message "${last.message}"`);
      expectThat(streamRequests(context) === 3, `${streamRequests(context)} model requests`);
      const meta = reply.meta();
      if (meta?.persisted) {
        const stored = await getConversation(main.url, meta.conversation_id);
        const roles = stored.body.messages.map((message) => `${message.role}:${message.status}`).join(',');
        expectThat(roles === 'user:complete,assistant:error', `stored ${roles}`);
      }
      gemini.reset();
      return `${last.code}: "${last.message}"`;
    },
  );

  await report.check('faults', 'the model answering 503 twice is retried and the third attempt streams a whole answer', async () => {
    gemini.reset();
    gemini.failNext({ status: 503, times: 2, method: 'streamGenerateContent' });
    const reply = await ask(context, MODEL_QUESTIONS[3]);
    expectThat(reply.last()?.type === 'done', `ended with ${reply.last()?.type}`);
    expectThat(streamRequests(context) === 3, `${streamRequests(context)} model requests`);
    return '3 model requests, done';
  });

  await report.check(
    'faults',
    'a model stream cut after 2 events gives an error event, and the partial answer is stored with status error',
    async () => {
      gemini.reset();
      gemini.cutStreamAfter(2);
      const reply = await ask(context, MODEL_QUESTIONS[0]);
      const last = reply.last() as ErrorEvent | undefined;
      expectThat(last?.type === 'error', `ended with ${last?.type}`);
      const partial = reply.text();
      expectThat(partial.length > 0, 'no token arrived before the cut');
      const meta = reply.meta()!;
      expectThat(meta.persisted, 'the answer was not persisted');
      const stored = await getConversation(main.url, meta.conversation_id);
      const answer = stored.body.messages.find((message) => message.id === meta.message_id);
      expectThat(answer?.status === 'error', `stored status ${answer?.status}`);
      expectThat(answer.content === partial, `stored "${answer.content}" instead of the ${partial.length} streamed characters`);
      return `${last.code}, ${partial.length} characters kept`;
    },
  );

  await report.check(
    'faults',
    'a reader leaving mid-answer closes the upstream model stream within 1 s, and the answer is stored as interrupted',
    async () => {
      gemini.reset();
      gemini.setDelay(100);
      try {
        const question = MODEL_QUESTIONS[0];
        context.sent.add(question);
        const reader = await openChat(main.url, chatBody(question));
        const meta = (await reader.waitFor((event) => event.type === 'meta')) as MetaEvent;
        await reader.waitFor(isToken);
        const stream = gemini.lastStream;
        expectThat(stream, 'the stand-in saw no stream');
        const leftAt = performance.now();
        reader.leave();
        const outcome = await Promise.race([
          stream.closed,
          new Promise<string>((resolve) => setTimeout(() => resolve('still open after 1 s'), 1000)),
        ]);
        const closedAfterMs = Math.round(performance.now() - leftAt);
        expectThat(outcome === 'client-disconnected', `upstream stream: ${outcome}`);
        let status = '';
        await until(
          'the interrupted answer stored',
          async () => {
            const stored = await getConversation(main.url, meta.conversation_id);
            status = stored.body.messages.find((message) => message.id === meta.message_id)?.status ?? 'missing';
            return status !== 'pending' && status !== 'missing';
          },
          5000,
        );
        expectThat(status === 'interrupted', `stored status ${status}`);
        return `upstream closed ${closedAfterMs} ms after the reader left`;
      } finally {
        gemini.setDelay(0);
      }
    },
  );
  gemini.reset();
}
