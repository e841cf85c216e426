import { readdirSync, readFileSync } from 'node:fs';
import { createChatStreamParser, type ChatStreamEvent, type ErrorEvent, type MetaEvent } from '@docs-chat/core/protocol';
import { startGeminiStandIn } from '@docs-chat/stand-ins';
import { loadConfig } from './config.js';
import { startServer } from './server-runtime.js';
import {
  answerText,
  createTestIndex,
  eventually,
  LogCapture,
  postChat,
  standInModelEnv,
  startTestServer,
  type TestIndex,
} from './testing/test-server.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

let index: TestIndex;

beforeAll(async () => {
  index = await createTestIndex();
  // Created here, once, rather than inside the first test's time budget.
  await index.sharedStore();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await index?.remove();
});

/** Starts a chat and resolves once its first token has arrived, with the rest still coming. */
async function startAnswer(url: string): Promise<{ events: ChatStreamEvent[]; finished: Promise<void> }> {
  const response = await fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'How do I install Tidewater?', mode: 'general' }),
  });
  const events: ChatStreamEvent[] = [];
  const parser = createChatStreamParser((event) => events.push(event));
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let firstToken!: () => void;
  const gotToken = new Promise<void>((resolve) => (firstToken = resolve));
  const finished = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
      if (events.some((event) => event.type === 'token')) firstToken();
    }
    parser.end();
    firstToken();
  })();
  await gotToken;
  return { events, finished };
}

describe('graceful shutdown', () => {
  it('lets a running answer finish before the server stops, and refuses new requests meanwhile', async () => {
    const server = await startTestServer({ index, env: { SHUTDOWN_GRACE_MS: '10000' } });
    server.gemini.setDelay(60);
    const answer = await startAnswer(server.url);
    const closing = server.close();
    await answer.finished;
    await closing;
    expect(answer.events.at(-1)?.type).toBe('done');
    const meta = answer.events[0] as MetaEvent;
    const stored = (await server.store.getConversation(meta.conversation_id))?.messages[1];
    expect(stored?.status).toBe('complete');
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('stops answers still running after SHUTDOWN_GRACE_MS with an error event and stores them as interrupted', async () => {
    const server = await startTestServer({ index, env: { SHUTDOWN_GRACE_MS: '200' } });
    server.gemini.setDelay(300);
    const answer = await startAnswer(server.url);
    const started = Date.now();
    await server.close();
    await answer.finished;
    expect(Date.now() - started).toBeLessThan(5000);
    const last = answer.events.at(-1) as ErrorEvent;
    expect(last).toMatchObject({ type: 'error', code: 'shutting_down', retryable: true });
    const meta = answer.events[0] as MetaEvent;
    await eventually(async () => (await server.store.getConversation(meta.conversation_id))?.messages[1]?.status === 'interrupted');
    const stored = (await server.store.getConversation(meta.conversation_id))?.messages[1];
    expect(stored?.content).toBe(answerText(answer.events));
  });
});

describe('requests during shutdown', () => {
  it('are refused with 503 shutting_down in the documented shape, with CORS headers', async () => {
    const origin = 'http://localhost:3000';
    const server = await startTestServer({ index, env: { SHUTDOWN_GRACE_MS: '10000', CORS_ORIGINS: origin } });
    server.gemini.setDelay(60);
    const answer = await startAnswer(server.url);
    const closing = server.close();
    // The listening socket stays open while running answers get their grace period.
    let refused: Response | undefined;
    await eventually(async () => {
      refused = await fetch(`${server.url}/health`, { headers: { origin } });
      return refused.status === 503;
    });
    const body = (await refused!.json()) as { error: { code: string; message: string }; request_id: string };
    expect(body.error.code).toBe('shutting_down');
    expect(body.error.message).toMatch(/try again/);
    expect(body.request_id).toBe(refused!.headers.get('x-request-id'));
    expect(refused!.headers.get('access-control-allow-origin')).toBe(origin);
    expect(refused!.headers.get('retry-after')).toMatch(/^\d+$/);
    await answer.finished;
    await closing;
    expect(answer.events.at(-1)?.type).toBe('done');
  });

  it('log no close error when an answer runs to the end of the default 10 s grace period', async () => {
    const server = await startTestServer({ index });
    // The stand-in's answer takes far longer than the grace period at this pace.
    server.gemini.setDelay(1500);
    const answer = await startAnswer(server.url);
    await server.close();
    await answer.finished;
    expect(answer.events.at(-1)).toMatchObject({ type: 'error', code: 'shutting_down' });
    const entries = server.logs.entries();
    expect(entries.filter((entry) => entry.msg === 'error while closing')).toEqual([]);
    expect(entries.some((entry) => entry.msg === 'stopped answers still running after the grace period')).toBe(true);
  }, 40_000);
});

describe('start-up', () => {
  it('stops with llm_auth when the model provider rejects the key', async () => {
    const gemini = await startGeminiStandIn();
    try {
      const config = loadConfig({
        ...index.env,
        PORT: '0',
        GEMINI_API_KEY: 'wrong-key',
        GEMINI_BASE_URL: gemini.url,
        LLM_PROVIDER: 'gemini',
      });
      await expect(
        startServer(config, { logDestination: new LogCapture(), conversationStore: await index.sharedStore() }),
      ).rejects.toMatchObject({
        code: 'llm_auth',
      });
    } finally {
      await gemini.close();
    }
  });

  it('stops with index_missing and the command to run when nothing was ingested', async () => {
    const config = loadConfig({ DATA_DIR: `${index.dataDir}-empty`, EMBEDDING_PROVIDER: 'local', PORT: '0' });
    await expect(startServer(config, { logDestination: new LogCapture() })).rejects.toMatchObject({
      code: 'index_missing',
      hint: expect.stringMatching(/docs-chat ingest/),
    });
  });

  it('answers with quotes from the docs when no key is set, and tells the admin in the start-up log, not the reader', async () => {
    const logs = new LogCapture();
    const config = loadConfig({ ...index.env, PORT: '0', HOST: '127.0.0.1' });
    expect(config.server.llm.provider).toBe('extractive');
    const server = await startServer(config, { logDestination: logs, conversationStore: await index.sharedStore() });
    try {
      const response = await fetch(`${server.url}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ message: 'How do I install Tidewater?', mode: 'general' }),
      });
      const body = (await response.json()) as { answer: string; sources: unknown[] };
      expect(response.status).toBe(200);
      expect(body.answer).toMatch(/Install the package from npm/);
      expect(body.answer).toMatch(/^From the docs/);
      expect(body.answer).not.toMatch(/language model|configured/i);
      expect(body.sources.length).toBeGreaterThan(0);
      expect(logs.entries()).toContainEqual(
        expect.objectContaining({
          level: 30,
          msg: expect.stringMatching(/^no language model is configured: answers quote the docs; set GEMINI_API_KEY/),
        }),
      );
    } finally {
      await server.close();
    }
  });
});

/** The server's children running the embedded database (Linux /proc). */
function databaseProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('pglite-process.mjs'))
        found.push(Number(entry));
    } catch {
      // The process ended while it was being read.
    }
  }
  return found;
}

describe('the embedded conversation database (no DATABASE_URL)', () => {
  // Finds the database process through Linux's /proc, as the admin ingest tests do.
  it(
    'runs in a child process; if it dies, the log says so once, /metrics counts it, and answers are saved again after its restart',
    async () => {
      const gemini = await startGeminiStandIn();
      const logs = new LogCapture();
      const config = loadConfig({
        ...index.env,
        PORT: '0',
        HOST: '127.0.0.1',
        ...standInModelEnv(gemini),
      });
      const server = await startServer(config, { logDestination: logs });
      try {
        const [databasePid] = databaseProcesses();
        expect(databasePid).toEqual(expect.any(Number));
        process.kill(databasePid!, 'SIGKILL');
        await eventually(() => logs.entries().some((entry) => entry.msg === 'the embedded conversation database is back'), 20_000);
        const exits = logs.entries().filter((entry) => String(entry.msg).startsWith('the embedded conversation database process ended'));
        expect(exits).toEqual([expect.objectContaining({ level: 50, pid: databasePid, signal: 'SIGKILL' })]);
        expect(await (await fetch(`${server.url}/metrics`)).text()).toMatch(/^docs_chat_database_process_exits_total 1$/m);
        expect(databaseProcesses()).toEqual([expect.any(Number)]);

        // The driver may meet the dropped connection once; the next answer is saved.
        await eventually(async () => {
          const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
          const meta = reply.events[0] as MetaEvent;
          const stored = await fetch(`${server.url}/conversations/${meta.conversation_id}`);
          return stored.status === 200 && ((await stored.json()) as { messages: unknown[] }).messages.length === 2;
        }, 20_000);
      } finally {
        await server.close();
        await gemini.close();
      }
      expect(databaseProcesses()).toEqual([]);
    },
    SETUP_TIMEOUT_MS,
  );
});
