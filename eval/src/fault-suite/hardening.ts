/**
 * The server as an attacker would use it (issue 11): refusals keep the
 * documented shape, stay small and cannot hold a socket; feedback and
 * conversation reads have limits of their own; long questions are answered;
 * and a server killed with SIGKILL mid-answer or mid-ingest leaves no answer
 * `pending` and no orphan file once it is back.
 */
import { watch } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MetaEvent } from '@docs-chat/core/protocol';
import { askToEnd, openChat } from './chat-client.js';
import { processTree, sleep, startServerProcess, type ServerProcess } from './processes.js';
import { expectThat } from './report.js';
import { chatBody, getConversation, QUESTIONS, until, type SuiteContext } from './suite-context.js';

const ORIGIN = 'http://localhost:3000';
const LIMIT = 3;
/** Short on purpose, so a partial body is cut within the check's time. */
const REQUEST_TIMEOUT_MS = 1000;
const HEADERS_TIMEOUT_MS = 500;
/** See the file: delays each rename of a temporary file in the ingest process. */
const SLOW_DISK_PRELOAD = fileURLToPath(new URL('./slow-disk-preload.mjs', import.meta.url));

interface ErrorShape {
  error: { code: string; message: string; details?: string[] };
  request_id: string;
}

/** The documented error shape with its request id header and, for an allowed origin, the CORS header. */
async function documentedError(response: Response, status: number, code: string): Promise<ErrorShape> {
  expectThat(response.status === status, `status ${response.status}, expected ${status}`);
  const body = (await response.json()) as ErrorShape;
  expectThat(body.error?.code === code, `code ${body.error?.code}, expected ${code}`);
  expectThat(typeof body.error.message === 'string' && body.error.message.length > 10, 'no message');
  expectThat(
    body.request_id === response.headers.get('x-request-id') && /^[0-9a-f-]{36}$/.test(body.request_id),
    'request_id missing or not the x-request-id header',
  );
  expectThat(response.headers.get('access-control-allow-origin') === ORIGIN, 'no CORS header: the widget would see an opaque error');
  return body;
}

/** Sends raw bytes and returns what came back once the server closed the socket (or fails after `giveUpMs`). */
function rawExchange(url: string, bytes: string, giveUpMs: number): Promise<{ text: string; closedAfterMs: number }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const started = Date.now();
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the socket was still open after ${giveUpMs} ms`));
    }, giveUpMs);
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (text += data));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => socket.write(bytes));
  });
}

async function indexTemporaryFiles(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, 'index');
  const found: string[] = [];
  for (const collection of await readdir(root).catch(() => [] as string[])) {
    for (const entry of await readdir(path.join(root, collection)).catch(() => [] as string[])) {
      if (entry.endsWith('.tmp')) found.push(entry);
    }
  }
  return found;
}

/** `env`: a server of its own (DATA_DIR with an index, embedded conversations, the stand-in, ADMIN_TOKEN). */
export async function runHardeningChecks(context: SuiteContext, env: Record<string, string>): Promise<void> {
  const { report, main } = context;

  await report.check('bad input', 'questions of 2,001 to 4,000 characters are answered end to end (the limit is 4,000)', async () => {
    const sizes: number[] = [];
    for (const length of [2001, 3000, 4000]) {
      const question = `${QUESTIONS[0]} ${'Please be precise about every step. '.repeat(120)}`.slice(0, length);
      const reply = await askToEnd(main.url, chatBody(question));
      expectThat(reply.status === 200, `${length} characters: status ${reply.status}`);
      expectThat(reply.last()?.type === 'done', `${length} characters: the stream ended with ${reply.last()?.type}`);
      sizes.push(reply.text().length);
    }
    return `answers of ${sizes.join(', ')} characters`;
  });

  await report.check(
    'security',
    'framework errors keep the documented shape with request_id and CORS headers: 414 for a 150-character conversation id (URL not echoed), 400 for an undecodable URL, 404 for an unknown route, 415 for text/plain',
    async () => {
      const longId = 'z'.repeat(150);
      const tooLong = await documentedError(
        await fetch(`${main.url}/conversations/${longId}`, { headers: { origin: ORIGIN } }),
        414,
        'uri_too_long',
      );
      expectThat(!JSON.stringify(tooLong).includes(longId), 'the URL was echoed');
      await documentedError(await fetch(`${main.url}/conversations/%E0%A4%A`, { headers: { origin: ORIGIN } }), 400, 'malformed_request');
      await documentedError(await fetch(`${main.url}/.env`, { headers: { origin: ORIGIN } }), 404, 'route_not_found');
      await documentedError(
        await fetch(`${main.url}/chat`, {
          method: 'POST',
          headers: { origin: ORIGIN, 'content-type': 'text/plain' },
          body: JSON.stringify(chatBody(QUESTIONS[0])),
        }),
        415,
        'unsupported_media_type',
      );
    },
  );

  await report.check(
    'security',
    'unknown-key amplification: a body with 30,000 unknown keys gets a 400 under 4 KB listing ten problems and a count',
    async () => {
      const body: Record<string, unknown> = chatBody(QUESTIONS[0]);
      for (let key = 0; key < 30_000; key += 1) body[`key${key}`] = key;
      const sent = JSON.stringify(body);
      const response = await fetch(`${main.url}/chat`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json' },
        body: sent,
      });
      const text = await response.clone().text();
      const parsed = await documentedError(response, 400, 'invalid_request');
      expectThat(text.length < 4096, `the answer is ${text.length} bytes`);
      expectThat(parsed.error.details?.length === 11, `${parsed.error.details?.length} details`);
      return `${sent.length} bytes sent, ${text.length} bytes back`;
    },
  );

  const hardenedEnv = {
    ...env,
    RATE_LIMIT_MAX: '100000',
    FEEDBACK_RATE_LIMIT_MAX: String(LIMIT),
    CONVERSATION_RATE_LIMIT_MAX: String(LIMIT),
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    CORS_ORIGINS: ORIGIN,
  };
  let hardened: ServerProcess | null = await startServerProcess('hardened', hardenedEnv);
  try {
    await runOnHardened(context, hardened);

    await report.check(
      'faults',
      'server SIGKILL mid-answer: after a restart the answer is interrupted, not pending, and keeps the text saved while it streamed',
      async () => {
        context.gemini.reset();
        context.gemini.setDelay(250);
        const chat = await openChat(hardened!.url, chatBody(QUESTIONS[0]));
        const meta = (await chat.waitFor((event) => event.type === 'meta')) as MetaEvent;
        await chat.waitFor((event) => event.type === 'token');
        // Past one progress save (every second).
        await sleep(1800);
        const seen = chat.text();
        process.kill(hardened!.pid, 'SIGKILL');
        await chat.finished;
        context.gemini.reset();
        await hardened!.stop();
        hardened = await startServerProcess('hardened-restarted', hardenedEnv);
        const { status, body } = await getConversation(hardened.url, meta.conversation_id);
        expectThat(status === 200, `GET /conversations: ${status}`);
        const answer = body.messages.find((message) => message.id === meta.message_id);
        expectThat(answer?.status === 'interrupted', `the answer is ${answer?.status}`);
        expectThat(
          (answer?.content.length ?? 0) > 0 && seen.startsWith(answer.content),
          `saved ${answer?.content.length} characters, not a prefix of the ${seen.length} seen`,
        );
        return `${answer.content.length} of ${seen.length} streamed characters kept`;
      },
    );

    await report.check(
      'faults',
      'server and its ingest process SIGKILLed mid admin ingest, while a temporary file exists (a slow disk, injected): the next ingest removes the orphan .tmp files and the index still answers',
      async () => {
        await hardened!.stop();
        // On a fast disk the writer holds a temporary file for a fraction of a millisecond, too short for a kill
        // sent on seeing it to land in time; on a slow disk it holds it long. The preload makes each rename of a
        // temporary file in the ingest process wait, so the kill lands mid-write on any host.
        const server = await startServerProcess('hardened-slow-disk', { ...hardenedEnv, FAULT_TMP_RENAME_DELAY_MS: '1000' }, [
          '--import',
          SLOW_DISK_PRELOAD,
        ]);
        let killedAt: string | undefined;
        let orphans: string[] = [];
        try {
          const indexRoot = path.join(env.DATA_DIR!, 'index');
          const collections = await readdir(indexRoot);
          // The writer is the `docs-chat ingest` process the server starts for POST /admin/ingest. Both are killed
          // the moment it creates its first temporary file, as a container stop or the OOM killer ends them together.
          const watchers = collections.map((collection) =>
            watch(path.join(indexRoot, collection), (_event, name) => {
              if (killedAt !== undefined || typeof name !== 'string' || !name.endsWith('.tmp')) return;
              killedAt = name;
              for (const pid of processTree(server.pid).reverse()) {
                try {
                  process.kill(pid, 'SIGKILL');
                } catch {
                  // already gone
                }
              }
            }),
          );
          try {
            await fetch(`${server.url}/admin/ingest`, {
              method: 'POST',
              headers: { authorization: `Bearer ${context.adminToken}`, 'content-type': 'application/json' },
              body: JSON.stringify({ rebuild: true }),
            }).then(
              (response) => response.arrayBuffer(),
              () => undefined,
            );
            await until('the server to die', () => processGone(server.pid), 30_000);
          } finally {
            for (const watcher of watchers) watcher.close();
          }
          orphans = await indexTemporaryFiles(env.DATA_DIR!);
        } finally {
          await server.stop();
          hardened = await startServerProcess('hardened-after-ingest-kill', hardenedEnv);
        }
        expectThat(killedAt !== undefined, 'the ingest finished without ever writing a temporary file');
        expectThat(orphans.length > 0, `killed on seeing ${killedAt}, yet no temporary file was left`);
        const response = await fetch(`${hardened.url}/admin/ingest`, {
          method: 'POST',
          headers: { authorization: `Bearer ${context.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({}),
        });
        expectThat(response.ok, `the next ingest answered ${response.status}`);
        // The ingest answers once it is done.
        await response.arrayBuffer();
        const left = await indexTemporaryFiles(env.DATA_DIR!);
        expectThat(left.length === 0, `still there: ${left.join(', ')}`);
        const search = (await (await fetch(`${hardened.url}/search?q=${encodeURIComponent('install Tidewater')}`)).json()) as {
          results?: unknown[];
        };
        const hits = search.results ?? [];
        expectThat(hits.length > 0, 'the index answers no search');
        return `${orphans.length} orphan file(s) after the kill, none after the next ingest, ${hits.length} hits`;
      },
    );

    await report.check(
      'faults',
      'requests during shutdown get 503 shutting_down in the documented shape with request_id and CORS headers',
      async () => {
        context.gemini.reset();
        context.gemini.setDelay(100);
        const chat = await openChat(hardened!.url, chatBody(QUESTIONS[0]));
        await chat.waitFor((event) => event.type === 'token');
        process.kill(hardened!.pid, 'SIGTERM');
        let refused: Response | null = null;
        await until(
          'a 503 during the grace period',
          async () => {
            refused = await fetch(`${hardened!.url}/health`, { headers: { origin: ORIGIN } }).catch(() => null);
            return refused?.status === 503;
          },
          5000,
          50,
        );
        await documentedError(refused!, 503, 'shutting_down');
        await chat.finished;
        context.gemini.reset();
        expectThat(chat.last()?.type === 'done', `the running answer ended with ${chat.last()?.type}`);
        // The server ends by itself once its answers are done; stop() would send a second signal.
        const pid = hardened!.pid;
        await until('the server to exit after its last answer', () => processGone(pid), 20_000).catch(() => undefined);
        const exitCode = await hardened!.stop();
        hardened = null;
        expectThat(exitCode === 0, `exit code ${exitCode}`);
      },
    );
  } finally {
    context.gemini.reset();
    await hardened?.stop();
  }
}

/** Checks that need the short timeouts and the small feedback and conversation limits. */
async function runOnHardened(context: SuiteContext, server: ServerProcess): Promise<void> {
  const { report } = context;
  await report.check(
    'security',
    `partial bodies: a socket that sends the headers and half a body is answered 408 in the documented shape and closed after REQUEST_TIMEOUT_MS (${REQUEST_TIMEOUT_MS} ms here)`,
    async () => {
      const head = `POST /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"message": "How do I ins`;
      const { text, closedAfterMs } = await rawExchange(server.url, head, 10_000);
      expectThat(/^HTTP\/1\.1 408/.test(text), `got ${text.slice(0, 40) || 'nothing'}`);
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as ErrorShape;
      expectThat(body.error.code === 'request_timeout' && typeof body.request_id === 'string', `body ${JSON.stringify(body)}`);
      const headersOnly = await rawExchange(server.url, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n', 10_000);
      expectThat(/^HTTP\/1\.1 408/.test(headersOnly.text), `unfinished headers: got ${headersOnly.text.slice(0, 40) || 'nothing'}`);
      return `closed after ${closedAfterMs} ms (body) and ${headersOnly.closedAfterMs} ms (headers)`;
    },
  );

  await report.check('security', 'an answer streaming for longer than REQUEST_TIMEOUT_MS is not cut', async () => {
    context.gemini.reset();
    context.gemini.setDelay(150);
    try {
      const started = Date.now();
      const reply = await askToEnd(server.url, chatBody(QUESTIONS[0]));
      const took = Date.now() - started;
      expectThat(took > REQUEST_TIMEOUT_MS, `the answer took only ${took} ms`);
      expectThat(reply.last()?.type === 'done', `ended with ${reply.last()?.type}`);
      return `${took} ms`;
    } finally {
      context.gemini.reset();
    }
  });

  const answer = await askToEnd(server.url, chatBody(QUESTIONS[0]));
  const meta = answer.meta()!;
  await report.check(
    'security',
    `POST /feedback has a rate limit of its own (FEEDBACK_RATE_LIMIT_MAX=${LIMIT}): a burst of 20 gets ${LIMIT} x 201 then 429 in the documented shape`,
    async () => {
      const statuses: number[] = [];
      let last: Response | null = null;
      for (let attempt = 0; attempt < 20; attempt += 1) {
        last = await fetch(`${server.url}/feedback`, {
          method: 'POST',
          headers: { origin: ORIGIN, 'content-type': 'application/json' },
          body: JSON.stringify({ message_id: meta.message_id, rating: attempt % 2 === 0 ? 'up' : 'down' }),
        });
        statuses.push(last.status);
        if (attempt < 19) await last.arrayBuffer();
      }
      expectThat(
        statuses.slice(0, LIMIT).every((status) => status === 201),
        `first statuses ${statuses.slice(0, LIMIT).join(',')}`,
      );
      expectThat(
        statuses.slice(LIMIT).every((status) => status === 429),
        `then ${statuses.slice(LIMIT).join(',')}`,
      );
      await documentedError(last!, 429, 'rate_limited');
      expectThat(/^\d+$/.test(last!.headers.get('retry-after') ?? ''), 'no retry-after');
    },
  );

  await report.check(
    'security',
    `GET /conversations/:id has a rate limit of its own (CONVERSATION_RATE_LIMIT_MAX=${LIMIT}): a burst of 20 gets ${LIMIT} x 200 then 429`,
    async () => {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 20; attempt += 1) {
        const response = await fetch(`${server.url}/conversations/${meta.conversation_id}`);
        statuses.push(response.status);
        await response.arrayBuffer();
      }
      expectThat(
        statuses.slice(0, LIMIT).every((status) => status === 200),
        `first statuses ${statuses.slice(0, LIMIT).join(',')}`,
      );
      expectThat(
        statuses.slice(LIMIT).every((status) => status === 429),
        `then ${statuses.slice(LIMIT).join(',')}`,
      );
    },
  );
}

/** True once no process has this pid any more. */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}
