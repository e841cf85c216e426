import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalEmbedder } from '../embeddings/local-embedder.js';
import { createEmbeddingPipeline } from '../embeddings/embedding-pipeline.js';
import { createEmbeddedStore } from '../stores/embedded-store.js';
import type { VectorStore } from '../stores/vector-store.js';
import { ingestDocs } from '../ingest/run-ingest.js';
import { readTermStatistics } from '../text/term-statistics.js';
import { createThesaurus } from '../text/synonyms.js';
import { createRetriever } from './retriever.js';
import type { ScopeCalibration } from './scope-check.js';
import type { Retriever } from './search-types.js';

/** Thresholds as an admin would set them (SCOPE_MIN_*): these tests are about the rules, not about a fit. */
const LOCAL_CALIBRATION: ScopeCalibration = { minVocabulary: 0.4, minEvidence: 0.6, minDense: 0 };

const fixtureDocs = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'lighthouse-docs');

describe('hybrid retriever on a small corpus', () => {
  let dataDir: string;
  let docsDir: string;
  let store: VectorStore;
  let retriever: Retriever;
  const embedder = createLocalEmbedder();
  const embedding = createEmbeddingPipeline({ embedder });

  async function ingest(options: { rebuild?: boolean } = {}) {
    return ingestDocs({ store, embedder, embedding, dataDir }, { docsDir, ...options });
  }

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-retriever-'));
    docsDir = path.join(dataDir, 'docs');
    await fs.cp(fixtureDocs, docsDir, { recursive: true });
    store = createEmbeddedStore({ dataDir });
    await ingest({ rebuild: true });
    retriever = createRetriever({ store, embedding, calibration: LOCAL_CALIBRATION });
  });

  afterEach(async () => {
    await store.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('ranks first the section whose heading the question names', async () => {
    const response = await retriever.search('How often should the lens be cleaned?');
    expect(response.hits[0]?.chunk.heading).toBe('Cleaning the lens');
    expect(response.outOfScope).toBe(false);
  });

  it('answers a question as long as the chat protocol allows (4,000 characters) by what it asks', async () => {
    const log = Array.from({ length: 120 }, (_, index) => `    at pumpOil (keeper/pump.js:${index + 10}:4)`).join('\n');
    const question =
      `The lamp went dark last night and the log shows:\n\nError: wick not found\n${log}\n\nHow often should the lens be cleaned?`.slice(
        -4000,
      );
    expect(question.length).toBeGreaterThan(3000);
    const response = await retriever.search(question, { explain: true });
    expect(response.hits[0]?.chunk.heading).toBe('Cleaning the lens');
    expect(response.outOfScope).toBe(false);
    expect(response.explanation?.condensedQuestion).toContain('How often should the lens be cleaned?');
    await expect(retriever.search('x'.repeat(4001))).rejects.toMatchObject({ code: 'query_invalid' });
  });

  it('finds the section for a paraphrase that shares few words with it and keeps it in scope', async () => {
    const response = await retriever.search('The flame keeps smoking, what should I do with the wick?');
    expect(response.hits.slice(0, 3).map((hit) => hit.chunk.heading)).toContain('Replacing the wick');
    expect(response.outOfScope).toBe(false);
    expect(response.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it('finds a section written with a synonym of the reader\'s words ("turn off" for "disable")', async () => {
    const response = await retriever.search('How is the horn turned off?');
    expect(response.hits[0]?.chunk.heading).toBe('Before climbing the gallery');
    expect(response.outOfScope).toBe(false);
  });

  it('explains on request which words it added and how the out-of-scope check saw the question', async () => {
    expect((await retriever.search('How is the horn turned off?')).explanation).toBeUndefined();
    const { explanation, outOfScope } = await retriever.search('How is the horn turned off?', { explain: true });
    expect(explanation?.questionTerms).toEqual(['horn', 'turn']);
    expect(explanation?.addedTerms).toContainEqual({ term: 'disabl', weight: 0.5, source: 'synonym' });
    expect(explanation?.addedTerms.every((term) => term.weight > 0 && term.weight < 1)).toBe(true);
    expect(explanation?.scope).toMatchObject({
      minVocabulary: LOCAL_CALIBRATION.minVocabulary,
      minEvidence: LOCAL_CALIBRATION.minEvidence,
      missingNames: [],
    });
    // Both words occur in the docs ("turns" the lens), and the best sections hold them.
    expect(explanation?.scope.vocabulary).toBe(1);
    expect(outOfScope).toBe(false);
  });

  it("understands the admin's own jargon through a synonym group, and keeps such a question in scope", async () => {
    const question = 'When must the klaxon be sounded?';
    // "klaxon" is a word the docs never use: alone, the question is judged out of scope.
    expect((await retriever.search(question)).outOfScope).toBe(true);
    const withJargon = createRetriever({
      store,
      embedding,
      calibration: LOCAL_CALIBRATION,
      thesaurus: createThesaurus([['klaxon', 'horn']]),
    });
    const response = await withJargon.search(question);
    expect(response.outOfScope).toBe(false);
    expect(response.hits[0]?.chunk.heading).toBe('Sounding the horn in fog');
  });

  it('returns a long section split into parts once, so the other places go to other sections', async () => {
    const paragraphs = Array.from(
      { length: 40 },
      (_, index) => `Entry ${index + 1}: each logbook entry records the wind, the sea state and the hours the lamp burned that night.`,
    );
    await fs.writeFile(
      path.join(docsDir, 'guides', 'logbook.md'),
      `---\ntitle: Logbook\n---\n\n## Writing logbook entries\n\n${paragraphs.join('\n\n')}\n`,
    );
    await ingest();
    const parts = (await store.getByFile('guides/logbook.md')).filter((chunk) => chunk.heading === 'Writing logbook entries');
    expect(parts.length).toBeGreaterThan(1);
    const { hits } = await retriever.search('What goes into a logbook entry?', { k: 5 });
    expect(hits.filter((hit) => hit.chunk.heading === 'Writing logbook entries')).toHaveLength(1);
    expect(hits.map((hit) => hit.rank)).toEqual(hits.map((_, index) => index + 1));
    expect(hits.length).toBeGreaterThan(1);
  });

  it('finds the section holding a pasted error with an address in it, not the table of numbers', async () => {
    // A settings table full of dotted numbers: their digit pieces ("127", "0", "1") once matched the address's.
    const rows = [
      ['BIND_ADDRESS', '127.0.0.1', 'Address the beacon server listens on'],
      ['BEACON_PORT', '8000', 'Port of the beacon server'],
      ['FLASH_SECONDS', '0.5', 'Length of one flash'],
      ['MIN_SCORE', '0.75', 'Lowest score a match keeps'],
      ['RETRIES', '1', 'Attempts after a failure'],
      ['START_DELAY', '0', 'Seconds before the first flash'],
      ['SCHEMA', '1.0.0', 'Version of the log format'],
    ];
    await fs.writeFile(
      path.join(docsDir, 'settings.md'),
      `---\ntitle: Settings\n---\n\n| Setting | Default | Meaning |\n| --- | --- | --- |\n${rows.map((row) => `| \`${row.join('` | `')}\` |`).join('\n')}\n`,
    );
    await fs.writeFile(
      path.join(docsDir, 'troubleshooting.md'),
      '---\ntitle: Troubleshooting\n---\n\n## The beacon store cannot be reached\n\n' +
        'Searching fails with `Cannot reach the beacon store at http://localhost:6333 (ECONNREFUSED)`. Start the store, or point `BEACON_STORE_URL` at it.\n',
    );
    await ingest();
    const response = await retriever.search('Error: connect ECONNREFUSED 127.0.0.1:6333', { explain: true });
    expect(response.hits[0]?.chunk.heading).toBe('The beacon store cannot be reached');
    expect(response.explanation?.questionTerms).toEqual(expect.arrayContaining(['127.0.0.1', '6333']));
    expect(response.explanation?.questionTerms).not.toEqual(expect.arrayContaining(['0']));
  });

  it('rejects a question about something the docs never mention, with low confidence', async () => {
    const response = await retriever.search('How do I deploy my Gatsby site to Netlify?');
    expect(response.outOfScope).toBe(true);
    expect(response.confidence).toBeLessThan(0.5);
  });

  it('scores questions whose embeddings come back in one batch in separate turns of the event loop', async () => {
    const questions = [
      'How often should the lens be cleaned?',
      'How do I turn off the foghorn?',
      'How do I deploy my Gatsby site to Netlify?',
    ];
    // The inference thread answers a batch of questions with one message: every search resumes at the same moment.
    let arrived = 0;
    let releaseBatch!: () => void;
    const batch = new Promise<void>((resolve) => {
      releaseBatch = resolve;
    });
    const batched = createRetriever({
      store,
      embedding: {
        embedQuery: async (text, options) => {
          const vector = await embedding.embedQuery(text, options);
          arrived += 1;
          if (arrived === questions.length) releaseBatch();
          await batch;
          return vector;
        },
      },
      calibration: LOCAL_CALIBRATION,
    });
    let iteration = 0;
    let counting = true;
    const count = () => {
      iteration += 1;
      if (counting) setImmediate(count);
    };
    const finishedIn: number[] = [];
    const searches = questions.map((question) => batched.search(question).then(() => finishedIn.push(iteration)));
    await batch;
    setImmediate(count);
    await Promise.all(searches);
    counting = false;
    // Each search finished in a loop iteration of its own, so sockets and timers were served between them.
    expect(new Set(finishedIn).size).toBe(questions.length);
  });

  it('returns a chunk with its neighbours and the whole document it belongs to, in document order', async () => {
    const [first] = (await retriever.search('Replacing the wick')).hits;
    const chunkId = first?.chunk.id as string;
    const document = await retriever.documentOf(chunkId);
    expect(document.map((chunk) => chunk.heading)).toEqual(['Cleaning the lens', 'Replacing the wick', 'Storing lamp oil']);
    const around = await retriever.neighbours(chunkId, { before: 1, after: 1 });
    expect(around.map((chunk) => chunk.heading)).toEqual(['Cleaning the lens', 'Replacing the wick', 'Storing lamp oil']);
    expect(await retriever.neighbours('00000000-0000-5000-8000-000000000000')).toEqual([]);
  });

  it('keeps its word statistics exact through an incremental ingest that edits and deletes pages', async () => {
    await fs.writeFile(
      path.join(docsDir, 'guides', 'lamp.md'),
      '---\ntitle: The lamp\n---\n\n## Cleaning the lens\n\nPolish the lens with a soft cloth.\n',
    );
    await fs.rm(path.join(docsDir, 'guides', 'fog-signal.md'));
    await ingest();
    const incremental = readTermStatistics((await store.readMeta())?.extra);
    await ingest({ rebuild: true });
    const rebuilt = readTermStatistics((await store.readMeta())?.extra);
    expect(incremental).toEqual(rebuilt);
    expect(rebuilt?.df.has('compressor')).toBe(false);
    // The deleted page's vector went with it: its words no longer pull any page up.
    expect((await retriever.search('compressor pistons grease')).outOfScope).toBe(true);
  });
});
