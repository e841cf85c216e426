import { randomUUID } from 'node:crypto';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import type { ConversationStore } from '../conversations/conversation-store.js';
import { ConversationGateway, type ServerLogger } from './conversation-gateway.js';
import { startConversationRetention } from './conversation-retention.js';

function recordingLogger(): ServerLogger & { infos: { details: object; message: string }[]; warns: string[] } {
  const infos: { details: object; message: string }[] = [];
  const warns: string[] = [];
  return {
    infos,
    warns,
    info: (details, message) => void infos.push({ details, message }),
    warn: (_details, message) => void warns.push(message),
    error: () => undefined,
  };
}

let store: ConversationStore;
beforeEach(async () => {
  store = await createConversationStore({ dataDir: ':memory:' });
  await store.migrate();
});
afterEach(async () => {
  await store.close();
});

async function conversationWithAQuestion(): Promise<string> {
  const id = randomUUID();
  await store.createConversation(id);
  await store.insertMessage({ id: randomUUID(), conversationId: id, role: 'user', content: 'q', mode: 'general', status: 'complete' });
  return id;
}

describe('conversation retention', () => {
  it('removes on schedule the conversations idle for longer than the retention, keeps the rest, and logs how many it removed', async () => {
    const logger = recordingLogger();
    const kept = await conversationWithAQuestion();
    const old = await conversationWithAQuestion();
    // Seen from 40 days ahead, both are 40 days idle; with a 30-day retention both go; with 60 days none.
    const later = Date.now() + 40 * 86_400_000;
    const keepAll = startConversationRetention({
      retentionDays: 60,
      conversations: new ConversationGateway(store, logger),
      logger,
      now: () => later,
      firstDelayMs: 60_000,
    });
    await expect(keepAll.sweep()).resolves.toBe(0);
    keepAll.stop();
    await expect(store.conversationExists(kept)).resolves.toBe(true);

    const sweeping = startConversationRetention({
      retentionDays: 30,
      conversations: new ConversationGateway(store, logger),
      logger,
      now: () => later,
      firstDelayMs: 5,
      intervalMs: 60_000,
    });
    const deadline = Date.now() + 5000;
    while (logger.infos.filter((entry) => entry.message === 'conversation retention sweep done').length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    sweeping.stop();
    await expect(store.conversationExists(kept)).resolves.toBe(false);
    await expect(store.conversationExists(old)).resolves.toBe(false);
    const sweeps = logger.infos.filter((entry) => entry.message === 'conversation retention sweep done');
    expect(sweeps.map((entry) => (entry.details as { removed: number }).removed)).toEqual([0, 2]);
  });

  it('logs a failed sweep with what happens next instead of crashing', async () => {
    const logger = recordingLogger();
    await store.close();
    const retention = startConversationRetention({
      retentionDays: 1,
      conversations: new ConversationGateway(store, logger),
      logger,
      firstDelayMs: 1,
    });
    const deadline = Date.now() + 5000;
    while (logger.warns.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    retention.stop();
    expect(logger.warns).toEqual(['conversation retention sweep failed; it runs again at the next interval']);
    store = await createConversationStore({ dataDir: ':memory:' });
  });
});
