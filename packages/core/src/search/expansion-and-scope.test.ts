import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalEmbedder } from '../embeddings/local-embedder.js';
import { createEmbeddingPipeline } from '../embeddings/embedding-pipeline.js';
import { createEmbeddedStore } from '../stores/embedded-store.js';
import type { VectorStore } from '../stores/vector-store.js';
import { ingestDocs } from '../ingest/run-ingest.js';
import { readTermAssociations } from '../text/term-associations.js';
import { createRetriever } from './retriever.js';
import type { ScopeCalibration } from './scope-check.js';
import type { Retriever } from './search-types.js';

/** Thresholds as an admin would set them (SCOPE_MIN_*): these tests are about the rules, not about a fit. */
const LOCAL_CALIBRATION: ScopeCalibration = { minVocabulary: 0.4, minEvidence: 0.6, minDense: 0 };

// A small handbook for a state library. "interceptor" is only ever used next to
// "middleware", and Jest is mentioned only as the test runner.
const PAGES: Record<string, string> = {
  'middleware.md':
    '# Middleware\n\n## What middleware does\n\nA middleware is an interceptor around dispatch. Each middleware sees every action before the reducer.\n\n## Writing your own middleware\n\nA middleware interceptor receives the store API and returns a function wrapping next. Middleware can log, delay or rewrite actions.\n\n## Returning the dispatch result\n\nA middleware must return what next returns: other middleware and callers await that value.\n',
  'reducers.md':
    '# Reducers\n\n## Pure reducers\n\nA reducer computes the next state from the previous state and an action, without side effects.\n\n## Splitting reducers\n\nLarge reducers are split by slice and combined.\n',
  'selectors.md':
    '# Selectors\n\n## Memoizing selectors\n\nMemoize selectors that derive lists so components re-render less. Memoized selectors return the same array.\n',
  'testing.md':
    '# Testing\n\n## Running the tests\n\nThe test suite runs with Jest: `npm test` starts Jest in watch mode.\n\n## Testing reducers\n\nCall the reducer with a state and an action and compare the result.\n',
  'store.md':
    '# Store\n\n## Creating the store\n\nCreate one store per app with the root reducer and the middleware list.\n\n## Subscribing\n\nSubscribe to the store to hear about every dispatched action.\n',
  'interceptors.md':
    '# Interceptors and middleware\n\n## Choosing an interceptor\n\nEvery interceptor you add is a middleware; keep the middleware chain short.\n',
};

describe('query expansion and the out-of-scope check', () => {
  let dataDir: string;
  let store: VectorStore;
  let retriever: Retriever;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-expansion-'));
    const docsDir = path.join(dataDir, 'docs');
    await fs.mkdir(docsDir, { recursive: true });
    for (const [file, text] of Object.entries(PAGES)) await fs.writeFile(path.join(docsDir, file), text);
    const embedder = createLocalEmbedder();
    const embedding = createEmbeddingPipeline({ embedder });
    store = createEmbeddedStore({ dataDir });
    await ingestDocs({ store, embedder, embedding, dataDir }, { docsDir, rebuild: true });
    retriever = createRetriever({ store, embedding, calibration: LOCAL_CALIBRATION });
  });

  afterAll(async () => {
    await store.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('learns at ingest which words the docs use together and keeps them with the index', async () => {
    const associations = readTermAssociations((await store.readMeta())?.extra);
    expect(associations?.get('interceptor')?.map(([word]) => word)).toContain('middlewar');
  });

  it('answers a question worded with a word the docs pair with the real term, and keeps it in scope', async () => {
    const response = await retriever.search('My interceptor awaits the dispatch result: what must it return?');
    expect(response.outOfScope).toBe(false);
    expect(response.hits.slice(0, 3).map((hit) => hit.chunk.heading)).toContain('Returning the dispatch result');
  });

  it('rejects a question about a tool the docs only mention in passing', async () => {
    const response = await retriever.search('How do I write a custom Jest snapshot serializer for my domain objects?');
    expect(response.outOfScope).toBe(true);
  });

  it('keeps a question about what the docs say of that tool in scope', async () => {
    const response = await retriever.search('How do I start the Jest tests in watch mode?');
    expect(response.outOfScope).toBe(false);
    expect(response.hits[0]?.chunk.heading).toBe('Running the tests');
  });

  it('does not take a two-letter word in capitals such as OK for a name', async () => {
    const response = await retriever.search('Is it OK to create more than one store?');
    expect(response.outOfScope).toBe(false);
    expect(response.hits[0]?.chunk.heading).toBe('Creating the store');
  });

  it('reads a common acronym such as RAM as an ordinary word, not as the name of something the docs lack', async () => {
    const response = await retriever.search('How do I split large reducers by slice when they take too much RAM?');
    expect(response.outOfScope).toBe(false);
    expect(response.hits[0]?.chunk.heading).toBe('Splitting reducers');
  });

  it('still rejects a question naming a product in capitals that the docs never mention', async () => {
    const response = await retriever.search('How do I split large reducers when the store runs on AWS?');
    expect(response.outOfScope).toBe(true);
  });
});
