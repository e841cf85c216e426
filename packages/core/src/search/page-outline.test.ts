import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLocalEmbedder } from '../embeddings/local-embedder.js';
import { createEmbeddingPipeline } from '../embeddings/embedding-pipeline.js';
import { ingestDocs } from '../ingest/run-ingest.js';
import { createEmbeddedStore } from '../stores/embedded-store.js';
import type { VectorStore } from '../stores/vector-store.js';
import { assembleContext } from './context-assembly.js';
import { isPageOpening, withPageOutline } from './page-outline.js';
import { createRetriever } from './retriever.js';
import type { Retriever } from './search-types.js';

const GUIDE = `---
title: Keep the keeper's log
---

This guide sets up the keeper's log of a lighthouse, from a blank ledger to the first signed day. Allow an hour.

## Buy a ledger

A bound ledger with numbered pages, so that no page can go missing unnoticed.

## Rule the columns

Time, weather, visibility, lamp state and remarks, one column each.

### Columns for a fog station

Add a column for the hours the fog signal sounded.

## Write each watch

At the end of each watch, write one line per hour.

## Sign the day

The principal keeper signs the last line of each day.
`;

describe('the outline of a page whose opening ranks first', () => {
  let dataDir: string;
  let store: VectorStore;
  let retriever: Retriever;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-outline-'));
    const docsDir = path.join(dataDir, 'docs');
    await fs.mkdir(docsDir, { recursive: true });
    await fs.writeFile(path.join(docsDir, 'keepers-log.md'), GUIDE);
    await fs.writeFile(
      path.join(docsDir, 'lamp.md'),
      '# The lamp\n\n## Cleaning the lens\n\nPolish the lens with a soft cloth once a week.\n',
    );
    const embedder = createLocalEmbedder();
    const embedding = createEmbeddingPipeline({ embedder });
    store = createEmbeddedStore({ dataDir });
    await ingestDocs({ store, embedder, embedding, dataDir }, { docsDir, rebuild: true });
    retriever = createRetriever({ store, embedding, calibration: { minVocabulary: 0.4, minEvidence: 0.6, minDense: 0 } });
  });
  afterAll(async () => {
    await store.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it("lists the page's sections in order, with their links, and gives them to the model with the opening", async () => {
    const { hits } = await retriever.search("How do I set up the keeper's log of a lighthouse?");
    expect(hits[0]?.chunk.headingPath).toEqual(["Keep the keeper's log"]);
    const outlined = await withPageOutline(hits, retriever);
    // Top-level sections only: the fog-station columns stay under "Rule the columns".
    expect(outlined[0]?.outline).toEqual([
      { heading: 'Buy a ledger', url: '/docs/keepers-log#buy-a-ledger' },
      { heading: 'Rule the columns', url: '/docs/keepers-log#rule-the-columns' },
      { heading: 'Write each watch', url: '/docs/keepers-log#write-each-watch' },
      { heading: 'Sign the day', url: '/docs/keepers-log#sign-the-day' },
    ]);
    expect(outlined.slice(1).every((hit) => hit.outline === undefined)).toBe(true);
    const context = assembleContext(outlined);
    expect(context.sources[0]?.outline).toHaveLength(4);
    expect(context.text).toContain('Sections of this page, in order: Buy a ledger; Rule the columns; Write each watch; Sign the day.');
  });

  it('treats only a docs page as having an opening: a JSON record, or a chunk without a URL, has no outline', () => {
    const opening = { headingPath: ["Keep the keeper's log"], part: 0, url: '/docs/keepers-log', source: 'docs' };
    expect(isPageOpening(opening)).toBe(true);
    expect(isPageOpening({ ...opening, source: 'records:faq' })).toBe(false);
    expect(isPageOpening({ ...opening, url: '' })).toBe(false);
    expect(isPageOpening({ ...opening, part: 1 })).toBe(false);
  });

  it('adds nothing when the best hit is a section, or when the page cannot be read', async () => {
    const { hits } = await retriever.search('How often should the lens be polished?');
    expect(hits[0]?.chunk.heading).toBe('Cleaning the lens');
    expect(await withPageOutline(hits, retriever)).toBe(hits);
    const opening = await retriever.search("How do I set up the keeper's log of a lighthouse?");
    const failing = { documentOf: () => Promise.reject(new Error('store down')) };
    expect(await withPageOutline(opening.hits, failing)).toBe(opening.hits);
  });
});
