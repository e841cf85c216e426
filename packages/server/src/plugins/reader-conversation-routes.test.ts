import type { MetaEvent } from '@docs-chat/core/protocol';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import { answerText, createTestIndex, postChat, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';
import type { ShareBody, SharedConversationBody } from './reader-conversation-routes.js';

const SETUP_TIMEOUT_MS = 120_000;

let index: TestIndex;
let store: ConversationStore;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex();
  store = await createConversationStore({ dataDir: ':memory:' });
  server = await startTestServer({ index, store, env: { RATE_LIMIT_MAX: '1000' } });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await store?.close();
  await index?.remove();
});

async function ask(message: string): Promise<{ meta: MetaEvent; answer: string }> {
  const reply = await postChat(server.url, { message, mode: 'general' });
  return { meta: reply.events[0] as MetaEvent, answer: answerText(reply.events) };
}

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe('a reader owning their conversation', () => {
  it('downloads the conversation as a Markdown file with the question, the answer and links to its sources on the docs site', async () => {
    const { meta, answer } = await ask('How do I install Tidewater?');
    const response = await fetch(
      `${server.url}/conversations/${meta.conversation_id}/export?format=md&site_url=${encodeURIComponent('https://docs.example.com')}`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="docs-chat-conversation-\d{4}-\d{2}-\d{2}\.md"$/);
    const markdown = await response.text();
    expect(markdown).toContain('## Question\n\nHow do I install Tidewater?');
    expect(markdown).toContain(answer.slice(0, 20));
    expect(markdown).toMatch(/\*\*Sources\*\*\n\n1\. \[[^\]]+\]\(https:\/\/docs\.example\.com\/docs\//);
  });

  it('refuses an unknown export format with a message naming the one there is, and 404s an unknown conversation', async () => {
    const { meta } = await ask('What is a lock?');
    const pdf = await fetch(`${server.url}/conversations/${meta.conversation_id}/export?format=pdf`);
    expect(pdf.status).toBe(400);
    expect(((await pdf.json()) as { error: { details: string[] } }).error.details).toEqual([
      '"format" must be "md" (Markdown), the only export format.',
    ]);
    const badSite = await fetch(`${server.url}/conversations/${meta.conversation_id}/export?format=md&site_url=javascript:alert(1)`);
    expect(badSite.status).toBe(400);
    const unknown = await fetch(`${server.url}/conversations/6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b/export?format=md`);
    expect(unknown.status).toBe(404);
  });

  it('shares a conversation read-only under a long random id that reveals neither the conversation id nor the message ids', async () => {
    const { meta, answer } = await ask('What does openHarbor return?');
    const share = async () => fetch(`${server.url}/conversations/${meta.conversation_id}/share`, { method: 'POST' });
    const first = await share();
    expect(first.status).toBe(201);
    const body = (await first.json()) as ShareBody;
    expect(body.share_id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(body.path).toBe(`/shared/${body.share_id}`);
    const second = (await (await share()).json()) as ShareBody;
    expect(second.share_id).not.toBe(body.share_id);

    const shared = await fetch(`${server.url}${body.path}`);
    expect(shared.status).toBe(200);
    expect(shared.headers.get('cache-control')).toBe('no-store');
    const text = await shared.text();
    expect(text).not.toContain(meta.conversation_id);
    expect(text).not.toContain(meta.message_id);
    const conversation = JSON.parse(text) as SharedConversationBody;
    expect(conversation.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'What does openHarbor return?'],
      ['assistant', answer],
    ]);
  });

  it('answers 404 for a share that does not exist and for sharing a conversation that does not exist', async () => {
    const unknownShare = await fetch(`${server.url}/shared/${'A'.repeat(32)}`);
    expect(unknownShare.status).toBe(404);
    expect(await errorCode(unknownShare)).toBe('share_not_found');
    expect((await fetch(`${server.url}/shared/short`)).status).toBe(404);
    const unknownConversation = await fetch(`${server.url}/conversations/6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b/share`, { method: 'POST' });
    expect(unknownConversation.status).toBe(404);
    expect(await errorCode(unknownConversation)).toBe('conversation_not_found');
  });

  it('deletes a conversation: it can no longer be resumed, exported or opened through an earlier share link', async () => {
    const { meta } = await ask('How do I install Tidewater?');
    const { path } = (await (
      await fetch(`${server.url}/conversations/${meta.conversation_id}/share`, { method: 'POST' })
    ).json()) as ShareBody;
    const deleted = await fetch(`${server.url}/conversations/${meta.conversation_id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await fetch(`${server.url}/conversations/${meta.conversation_id}`)).status).toBe(404);
    expect((await fetch(`${server.url}/conversations/${meta.conversation_id}/export?format=md`)).status).toBe(404);
    const shared = await fetch(`${server.url}${path}`);
    expect(shared.status).toBe(404);
    expect(await errorCode(shared)).toBe('share_not_found');
    const again = await fetch(`${server.url}/conversations/${meta.conversation_id}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect((await fetch(`${server.url}/conversations/not-a-uuid`, { method: 'DELETE' })).status).toBe(400);
  });

  it('lets the docs site delete a conversation from the browser (DELETE passes the CORS preflight)', async () => {
    const preflight = await fetch(`${server.url}/conversations/6f1d2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'DELETE' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('DELETE');
  });
});
