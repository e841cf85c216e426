import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startQdrantStandIn } from '@docs-chat/stand-ins';
import type { QdrantStandIn } from '@docs-chat/stand-ins';
import { QdrantClient } from '@qdrant/js-client-rest';
import { createEmbeddedStore } from './embedded-store.js';
import { createQdrantStore } from './qdrant-store.js';
import { describeVectorStoreConformance } from './vector-store.conformance.js';

describeVectorStoreConformance('embedded store', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'docs-chat-embedded-'));
  return { store: createEmbeddedStore({ dataDir }), cleanup: () => rm(dataDir, { recursive: true, force: true }) };
});

describe('against the Qdrant stand-in', () => {
  let standIn: QdrantStandIn;
  beforeAll(async () => {
    standIn = await startQdrantStandIn();
  });
  afterAll(async () => {
    await standIn.close();
  });

  describeVectorStoreConformance('Qdrant store', async () => ({
    store: createQdrantStore({ url: standIn.url, collection: `conformance-${randomUUID()}` }),
    cleanup: async () => undefined,
  }));
});

const realQdrantUrl = process.env.QDRANT_URL;
if (realQdrantUrl) {
  describeVectorStoreConformance(`Qdrant store on the real server at ${realQdrantUrl}`, async () => {
    const collection = `docs-chat-conformance-${randomUUID()}`;
    const apiKey = process.env.QDRANT_API_KEY;
    return {
      store: createQdrantStore({ url: realQdrantUrl, collection, ...(apiKey ? { apiKey } : {}) }),
      cleanup: async () => {
        const admin = new QdrantClient({ url: realQdrantUrl, ...(apiKey ? { apiKey } : {}), checkCompatibility: false });
        if ((await admin.collectionExists(collection)).exists) await admin.deleteCollection(collection);
      },
    };
  });
} else {
  console.info('Real-Qdrant conformance not registered: set QDRANT_URL (and QDRANT_API_KEY if needed) to run it against a live server.');
}
