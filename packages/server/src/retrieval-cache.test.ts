import type { Retriever, SearchResponse } from './core-api.js';
import { loadCoreConfig, openRetrieval } from './core-api.js';
import { withRetrievalCache } from './retrieval-cache.js';
import { createTestIndex, type TestIndex } from './testing/test-server.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

let index: TestIndex;

beforeAll(async () => {
  index = await createTestIndex();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await index?.remove();
});

/** The real retriever, counting the searches that reach it. */
async function countingRetriever(): Promise<{ retriever: Retriever; searches: () => number; close(): Promise<void> }> {
  const opened = await openRetrieval(loadCoreConfig(index.env));
  let searches = 0;
  return {
    retriever: {
      search: (query, options) => {
        searches += 1;
        return opened.retriever.search(query, options);
      },
      neighbours: (id, options) => opened.retriever.neighbours(id, options),
      documentOf: (id, signal) => opened.retriever.documentOf(id, signal),
    },
    searches: () => searches,
    close: opened.close,
  };
}

describe('the retrieval cache', () => {
  it("never answers one reader's version or locale with another's results", async () => {
    const inner = await countingRetriever();
    try {
      const cached = withRetrievalCache(inner.retriever, { maxEntries: 10, ttlMs: 60_000 });
      await cached.search('How do I install Tidewater?', { k: 5, scope: { version: '1.0', locale: 'en' } });
      await cached.search('How do I install Tidewater?', { k: 5, scope: { version: '2.0', locale: 'en' } });
      await cached.search('How do I install Tidewater?', { k: 5, scope: { version: '2.0', locale: 'fr' } });
      expect(inner.searches()).toBe(3);
      await cached.search('How do I install Tidewater?', { k: 5, scope: { version: '2.0', locale: 'fr' } });
      expect(inner.searches()).toBe(3);
    } finally {
      await inner.close();
    }
  });

  it('answers a repeated question from memory with the same results', async () => {
    const inner = await countingRetriever();
    try {
      const cached = withRetrievalCache(inner.retriever, { maxEntries: 10, ttlMs: 60_000 });
      const first: SearchResponse = await cached.search('How do I install Tidewater?', { k: 5 });
      const second = await cached.search('  How do I install   Tidewater? ', { k: 5 });
      expect(second).toEqual(first);
      expect(inner.searches()).toBe(1);
      await cached.search('How do I install Tidewater?', { k: 3 });
      expect(inner.searches()).toBe(2);
      // An explained search carries more than a plain one: it is never answered from the plain entry.
      const explained = await cached.search('How do I install Tidewater?', { k: 5, explain: true });
      expect(inner.searches()).toBe(3);
      expect(explained.explanation).toBeDefined();
      expect((await cached.search('How do I install Tidewater?', { k: 5 })).explanation).toBeUndefined();
    } finally {
      await inner.close();
    }
  });

  it('searches again once an entry has expired, and forgets the oldest entry when full', async () => {
    const inner = await countingRetriever();
    let clock = 0;
    try {
      const cached = withRetrievalCache(inner.retriever, { maxEntries: 2, ttlMs: 1000, now: () => clock });
      await cached.search('harbor');
      clock = 1500;
      await cached.search('harbor');
      expect(inner.searches()).toBe(2);
      await cached.search('signal');
      await cached.search('current');
      await cached.search('harbor');
      expect(inner.searches()).toBe(5);
      const chunkId = (await cached.search('current')).hits[0]!.chunk.id;
      expect(inner.searches()).toBe(5);
      expect((await cached.neighbours(chunkId, { before: 1, after: 1 })).map((chunk) => chunk.id)).toContain(chunkId);
      expect((await cached.documentOf(chunkId)).map((chunk) => chunk.id)).toContain(chunkId);
    } finally {
      await inner.close();
    }
  });

  it('keeps nothing when turned off', async () => {
    const inner = await countingRetriever();
    try {
      const cached = withRetrievalCache(inner.retriever, { maxEntries: 0, ttlMs: 1000 });
      expect(cached).toBe(inner.retriever);
    } finally {
      await inner.close();
    }
  });
});
