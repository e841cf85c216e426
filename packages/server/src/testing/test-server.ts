/**
 * Test support: the real server on 127.0.0.1 (port 0) over the real retrieval
 * core, with the fixture docs ingested into a temporary DATA_DIR, the Gemini
 * stand-in as the model, and any conversation store. Also a small SSE client
 * built on the protocol's own parser, and a log capture.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreConfig, runIngest } from '../core-api.js';
import { readSiteLayout } from '@docs-chat/core';
import { createChatStreamParser, type ChatStreamEvent } from '@docs-chat/core/protocol';
import { startGeminiStandIn, type GeminiStandIn } from '@docs-chat/stand-ins';
import { loadConfig } from '../config.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import { startServer, type RunningServer } from '../server-runtime.js';

/** A port nothing listens on right now, for a server started in a child process. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export const FIXTURE_DOCS_DIR = fileURLToPath(new URL('../__fixtures__/docs/', import.meta.url));

/** A temporary DATA_DIR holding the fixture docs, ingested with the offline hashing embedder (or the neural one when asked). */
export interface TestIndex {
  dataDir: string;
  env: Record<string, string>;
  /** One in-memory PGlite conversation store for every server of a test file (creating one takes seconds). */
  sharedStore(): Promise<ConversationStore>;
  /** Closes the shared store and deletes the directory. */
  remove(): Promise<void>;
}

/** A small Docusaurus site (versions 1.0 and current, locales en and fr) for whole-site ingest. */
export const FIXTURE_SITE_DIR = fileURLToPath(new URL('../__fixtures__/site/', import.meta.url));

export async function createTestIndex(options: { embedder?: 'local' | 'neural'; siteDir?: string } = {}): Promise<TestIndex> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-server-test-'));
  const env = { DATA_DIR: dataDir, DOCS_DIR: FIXTURE_DOCS_DIR, EMBEDDING_PROVIDER: options.embedder ?? 'local', VECTOR_STORE: 'embedded' };
  const site = options.siteDir ? await readSiteLayout({ siteDir: options.siteDir }) : undefined;
  await runIngest(loadCoreConfig(env), site ? { site } : {});
  let store: Promise<ConversationStore> | undefined;
  return {
    dataDir,
    env,
    sharedStore: () => (store ??= createConversationStore({ dataDir: ':memory:' })),
    remove: async () => {
      if (store) await (await store).close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every log line the server wrote, parsed. */
export class LogCapture {
  readonly lines: string[] = [];
  write(line: string): void {
    this.lines.push(line);
  }
  get text(): string {
    return this.lines.join('');
  }
  entries(): Record<string, unknown>[] {
    return this.text
      .split('\n')
      .filter((line) => line.trim().length > 0)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

export interface TestServer {
  url: string;
  server: RunningServer;
  gemini: GeminiStandIn;
  store: ConversationStore;
  logs: LogCapture;
  close(): Promise<void>;
}

export interface TestServerOptions {
  index: TestIndex;
  /** Extra or overriding environment variables. */
  env?: Record<string, string>;
  /** The conversation store (the caller closes it); the index's shared in-memory PGlite store when absent. */
  store?: ConversationStore;
  gemini?: GeminiStandIn;
}

/** The settings that point a server's chat model at the Gemini stand-in. */
export function standInModelEnv(gemini: GeminiStandIn): Record<string, string> {
  return { GEMINI_API_KEY: gemini.apiKey, GEMINI_BASE_URL: gemini.url, LLM_PROVIDER: 'gemini', LLM_MODEL: 'gemini-3.8-flash' };
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const gemini = options.gemini ?? (await startGeminiStandIn());
  const store = options.store ?? (await options.index.sharedStore());
  const logs = new LogCapture();
  const env = {
    ...options.index.env,
    PORT: '0',
    HOST: '127.0.0.1',
    ...standInModelEnv(gemini),
    LOG_LEVEL: 'info',
    ...options.env,
  };
  let server: RunningServer;
  try {
    server = await startServer(loadConfig(env), { logDestination: logs, conversationStore: store });
  } catch (error) {
    // A server that fails to start must not leave its stand-in holding the test process open.
    if (!options.gemini) await gemini.close();
    throw error;
  }
  return {
    url: server.url,
    server,
    gemini,
    store,
    logs,
    close: async () => {
      await server.close();
      if (!options.gemini) await gemini.close();
    },
  };
}

export interface ChatReply {
  status: number;
  headers: Headers;
  events: ChatStreamEvent[];
  /** Raw body text (heartbeat comments included). */
  raw: string;
  /** The JSON error body for non-stream answers. */
  json: unknown;
}

/** POSTs to /chat and reads the whole SSE answer with the protocol's parser. */
export async function postChat(
  url: string,
  body: unknown,
  init: RequestInit & { headers?: Record<string, string> } = {},
): Promise<ChatReply> {
  const response = await fetch(`${url}/chat`, {
    method: 'POST',
    ...init,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const raw = await response.text();
  const events: ChatStreamEvent[] = [];
  let json: unknown = null;
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const parser = createChatStreamParser((event) => events.push(event));
    parser.push(raw);
    parser.end();
  } else if (raw.length > 0) {
    json = JSON.parse(raw);
  }
  return { status: response.status, headers: response.headers, events, raw, json };
}

/** The answer text of a stream: its tokens joined. */
export function answerText(events: ChatStreamEvent[]): string {
  return events.map((event) => (event.type === 'token' ? event.content : '')).join('');
}

/** Waits until `check` is true, polling; fails after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs a command and returns its exit code with what it wrote to stderr meanwhile (nothing reaches the terminal). */
export async function captureStderr(run: () => Promise<number>): Promise<{ code: number; stderr: string }> {
  const original = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  };
  try {
    return { code: await run(), stderr };
  } finally {
    process.stderr.write = original;
  }
}
