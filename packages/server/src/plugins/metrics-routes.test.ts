import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { MetaEvent } from '@docs-chat/core/protocol';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import { createTestIndex, FIXTURE_DOCS_DIR, postChat, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';

const SETUP_TIMEOUT_MS = 120_000;
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';

let index: TestIndex;
beforeAll(async () => {
  index = await createTestIndex();
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await index?.remove();
});

/** The value of one sample: the line for `name` holding every given label. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        (candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `)) && wanted.every((label) => candidate.includes(label)),
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function scrape(server: TestServer, authorization?: string): Promise<string> {
  const response = await fetch(`${server.url}/metrics`, authorization ? { headers: { authorization } } : {});
  expect(response.status).toBe(200);
  return response.text();
}

describe('GET /metrics without METRICS_TOKEN', () => {
  let server: TestServer;
  let docsDir: string;
  beforeAll(async () => {
    docsDir = await mkdtemp(path.join(tmpdir(), 'docs-chat-metrics-docs-'));
    await cp(FIXTURE_DOCS_DIR, docsDir, { recursive: true });
    server = await startTestServer({ index, env: { RATE_LIMIT_MAX: '3', ADMIN_TOKEN, DOCS_DIR: docsDir } });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await server?.close();
    await rm(docsDir, { recursive: true, force: true });
  });

  it('counts requests by route template and status, answers in the latency histograms, and never shows a conversation id', async () => {
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    const meta = reply.events[0] as MetaEvent;
    expect((await fetch(`${server.url}/conversations/${meta.conversation_id}`)).status).toBe(200);
    expect((await fetch(`${server.url}/no/such/path`)).status).toBe(404);

    const response = await fetch(`${server.url}/metrics`);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    // How long rendering took, so a slow scrape can be told apart from a busy event loop.
    expect(response.headers.get('server-timing')).toMatch(/^render;dur=\d+\.\d{2}$/);
    const text = await response.text();
    expect(sample(text, 'docs_chat_http_requests_total', { method: 'POST', route: '/chat', status: '200' })).toBe(1);
    expect(sample(text, 'docs_chat_http_requests_total', { method: 'GET', route: '/conversations/:id', status: '200' })).toBe(1);
    expect(sample(text, 'docs_chat_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(text, 'docs_chat_time_to_first_token_seconds_count', { mode: 'general' })).toBe(1);
    expect(sample(text, 'docs_chat_retrieval_seconds_count')).toBe(1);
    expect(sample(text, 'docs_chat_answer_seconds_count', { mode: 'general', finish_reason: 'stop' })).toBe(1);
    expect(sample(text, 'docs_chat_answers_total', { outcome: 'answered' })).toBe(1);
    expect(sample(text, 'docs_chat_answers_total', { outcome: 'out_of_scope' })).toBe(0);
    expect(sample(text, 'docs_chat_conversation_store_failures_total')).toBe(0);
    // prom-client's default process metrics.
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain(meta.conversation_id);
    expect(text).not.toContain(meta.message_id);
  });

  it('publishes every metric that the documented Grafana dashboard and alert rules query, so no panel or alert stays empty', async () => {
    const docsSite = new URL('../../../../docs-site/', import.meta.url);
    const dashboard = JSON.parse(await readFile(new URL('static/grafana/docs-chat-dashboard.json', docsSite), 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const page = await readFile(new URL('docs/deployment/metrics.md', docsSite), 'utf8');
    const alertRules = /```yaml title="docs-chat-alerts.yml"\n([\s\S]*?)```/.exec(page)?.[1] ?? '';
    const queries = [...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)), alertRules];
    const queried = new Set(
      queries.flatMap((query) => [...query.matchAll(/\b(?:docs_chat|process|nodejs)_[a-z_]+\b/g)].map(([name]) => name)),
    );
    expect(queried.size).toBeGreaterThan(10);
    expect(alertRules).toContain('docs_chat_');

    const text = await scrape(server);
    const published = new Set(
      [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
        type === 'histogram' ? [name!, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!],
      ),
    );
    expect([...queried].filter((name) => !published.has(name))).toEqual([]);
  });

  it('counts requests refused by the rate limit', async () => {
    // The limit is 3 per window; the first test asked once.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1)
      statuses.push((await postChat(server.url, { message: 'What is a lock?', mode: 'general' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const text = await scrape(server);
    expect(sample(text, 'docs_chat_rate_limited_requests_total', { route: '/chat' })).toBe(1);
    expect(sample(text, 'docs_chat_http_requests_total', { method: 'POST', route: '/chat', status: '429' })).toBe(1);
  });

  it('records an admin ingest: runs, duration, chunks in the index and the time of the last success', async () => {
    const before = Math.floor(Date.now() / 1000);
    expect(sample(await scrape(server), 'docs_chat_ingest_last_success_timestamp_seconds')).toBe(0);
    const ingest = await fetch(`${server.url}/admin/ingest`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(ingest.status).toBe(200);
    const text = await scrape(server);
    expect(sample(text, 'docs_chat_ingest_runs_total', { trigger: 'admin', outcome: 'success' })).toBe(1);
    expect(sample(text, 'docs_chat_ingest_duration_seconds_count', { trigger: 'admin' })).toBe(1);
    expect(sample(text, 'docs_chat_ingest_chunks')).toBeGreaterThan(0);
    expect(sample(text, 'docs_chat_ingest_last_success_timestamp_seconds')).toBeGreaterThanOrEqual(before);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ index, env: { METRICS_TOKEN } });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await server?.close();
  });

  it('refuses a scrape without the token or with a wrong one (401, saying what to send), and serves one with it', async () => {
    const missing = await fetch(`${server.url}/metrics`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/Authorization: Bearer <METRICS_TOKEN>/);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}x` } })).status).toBe(401);
    expect(
      sample(await scrape(server, `Bearer ${METRICS_TOKEN}`), 'docs_chat_http_requests_total', { route: '/metrics', status: '401' }),
    ).toBe(2);
  });

  it('counts model retries and model errors by provider', async () => {
    server.gemini.failNext({ status: 503, times: 3, method: 'streamGenerateContent' });
    const reply = await postChat(server.url, { message: 'How do I install Tidewater?', mode: 'general' });
    expect(reply.events.some((event) => event.type === 'error')).toBe(true);
    const text = await scrape(server, `Bearer ${METRICS_TOKEN}`);
    expect(sample(text, 'docs_chat_model_retries_total', { provider: 'gemini', code: 'llm_unavailable' })).toBe(2);
    expect(sample(text, 'docs_chat_model_errors_total', { provider: 'gemini', code: 'llm_unavailable' })).toBe(1);
  });
});

describe('conversation store failures in /metrics', () => {
  it(
    'counts the operations that failed because the database could not be reached',
    async () => {
      const store = await createConversationStore({ dataDir: ':memory:' });
      const server = await startTestServer({ index, store });
      try {
        await store.close();
        expect((await fetch(`${server.url}/conversations/6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b`)).status).toBe(503);
        expect(sample(await scrape(server), 'docs_chat_conversation_store_failures_total', { backend: 'pglite' })).toBe(1);
      } finally {
        await server.close();
      }
    },
    SETUP_TIMEOUT_MS,
  );
});
