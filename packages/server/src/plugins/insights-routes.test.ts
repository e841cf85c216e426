import type { ConversationStore } from '../conversations/conversation-store.js';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import type { InsightsReport } from '../insights/insights-report.js';
import { createTestIndex, postChat, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';

const SETUP_TIMEOUT_MS = 120_000;
const ADMIN_TOKEN = 'insights-admin-token-0123456789';

let index: TestIndex;
let store: ConversationStore;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex();
  // A store of its own: the first test needs an empty database.
  store = await createConversationStore({ dataDir: ':memory:' });
  server = await startTestServer({ index, store, env: { ADMIN_TOKEN } });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await store?.close();
  await index?.remove();
});

function insights(query = '', authorization: string | null = `Bearer ${ADMIN_TOKEN}`): Promise<Response> {
  return fetch(`${server.url}/admin/insights${query}`, { headers: authorization ? { authorization } : {} });
}

async function ask(message: string, extra: Record<string, unknown> = {}): Promise<{ conversationId: string; messageId: string }> {
  const reply = await postChat(server.url, { message, mode: 'general', ...extra });
  const meta = reply.events.find((event) => event.type === 'meta');
  if (!meta || meta.type !== 'meta') throw new Error(`no meta event: ${reply.raw}`);
  return { conversationId: meta.conversation_id, messageId: meta.message_id };
}

describe('GET /admin/insights', () => {
  it('refuses a request without the admin token with 401', async () => {
    const response = await insights('', null);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await insights('', 'Bearer wrong-token')).status).toBe(401);
  });

  it('answers an empty database with an empty report: every day of the period at zero, no lists', async () => {
    const response = await insights('?since=7d');
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const report = (await response.json()) as InsightsReport;
    expect(report.totals).toEqual({ questions: 0, answered: 0, refused: 0, errors: 0, thumbs_up: 0, thumbs_down: 0 });
    // Seven days back from now touches eight calendar days.
    expect(report.per_day).toHaveLength(8);
    expect(report.per_day.every((day) => day.questions === 0)).toBe(true);
    expect(report.top_questions).toEqual([]);
    expect(report.gaps).toEqual([]);
    expect(report.down_voted).toEqual([]);
    expect(report.pages.most_cited).toEqual([]);
  });

  it.each(['0d', '366d', '9000h', '7', 'seven days', '1w', '-3d', '99999999999d'])(
    'refuses since=%s with a 400 that gives the allowed range',
    async (since) => {
      const response = await insights(`?since=${encodeURIComponent(since)}`);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; details: string[] } };
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details.join(' ')).toMatch(/from 1h to 365d/);
    },
  );

  it('refuses an unknown parameter and a repeated since with 400', async () => {
    expect((await insights('?days=7')).status).toBe(400);
    expect((await insights('?since=7d&since=30d')).status).toBe(400);
  });

  it('reports outcomes, refused questions with the sections they almost matched, down-votes, cited pages and highlights by page, without conversation ids', async () => {
    const install = await ask('How do I install Tidewater?');
    await ask('how do I install tidewater?  ');
    const offTopic = await ask('What is the best recipe for banana bread?');
    await ask('What is the best recipe for banana bread?');
    await postChat(server.url, {
      message: 'What does this mean?',
      mode: 'selection',
      context: 'Tidewater needs Node.js 18 or later.',
      page: { url: 'https://docs.example.com/docs/guides/installation', title: 'Installation' },
    });
    const vote = await fetch(`${server.url}/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message_id: install.messageId, rating: 'down', reason: 'too vague' }),
    });
    expect(vote.status).toBe(201);

    const response = await insights('?since=24h');
    expect(response.status).toBe(200);
    const text = await response.text();
    const report = JSON.parse(text) as InsightsReport;

    expect(report.totals.questions).toBe(5);
    expect(report.totals.refused).toBe(2);
    expect(report.totals.answered).toBe(3);
    expect(report.totals.thumbs_down).toBe(1);
    expect(report.per_day.reduce((sum, day) => sum + day.refused, 0)).toBe(2);

    // The two wordings of the install question are one group; selection questions are not "most asked".
    const installGroup = report.top_questions.find((group) => /install tidewater/i.test(group.question));
    expect(installGroup?.count).toBe(2);
    expect(report.top_questions.some((group) => group.question === 'What does this mean?')).toBe(false);

    const gap = report.gaps[0];
    expect(gap?.question).toBe('What is the best recipe for banana bread?');
    expect(gap?.count).toBe(2);
    expect(gap?.closest.length).toBeGreaterThan(0);
    expect(gap?.closest[0]?.file).toMatch(/\.md$/);
    expect(gap?.edit?.url).not.toContain('#');
    expect(gap?.edit?.file).toBe(gap?.closest[0]?.file);

    expect(report.down_voted).toHaveLength(1);
    expect(report.down_voted[0]?.question).toBe('How do I install Tidewater?');
    expect(report.down_voted[0]?.reason).toBe('too vague');
    expect(report.down_voted[0]?.answer.length).toBeGreaterThan(0);

    expect(report.pages.most_cited.length).toBeGreaterThan(0);
    expect(report.pages.most_cited[0]?.citations).toBeGreaterThan(0);

    expect(report.selection_by_page).toEqual([
      { url: 'https://docs.example.com/docs/guides/installation', title: 'Installation', questions: 1 },
    ]);

    // A docs owner sees what was asked, never a handle on a reader's conversation.
    for (const id of [install.conversationId, install.messageId, offTopic.conversationId, offTopic.messageId])
      expect(text).not.toContain(id);
  }, 60_000);

  it('serves a repeat request for the same period from its short cache (INSIGHTS_CACHE_SECONDS): same report, same until', async () => {
    const first = (await (await insights('?since=12h')).json()) as InsightsReport;
    await ask('How do I uninstall Tidewater?');
    const second = (await (await insights('?since=12h')).json()) as InsightsReport;
    expect(second.until).toBe(first.until);
    expect(second.totals.questions).toBe(first.totals.questions);
    // Another period is built now, and counts the new question.
    const other = (await (await insights('?since=13h')).json()) as InsightsReport;
    expect(other.totals.questions).toBe(first.totals.questions + 1);
  }, 60_000);
});
