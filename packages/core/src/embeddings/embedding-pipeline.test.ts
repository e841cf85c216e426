import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGeminiStandIn } from '@docs-chat/stand-ins';
import type { GeminiStandIn } from '@docs-chat/stand-ins';
import type { DocsChatError } from '../errors.js';
import { createFileEmbeddingCache, createMemoryEmbeddingCache } from './embedding-cache.js';
import { createEmbeddingPipeline } from './embedding-pipeline.js';
import type { DocumentToEmbed } from './embedding-pipeline.js';
import { createGeminiEmbedder } from './gemini-embedder.js';
import type { Embedder, EmbedRequest } from './embedder.js';

let standIn: GeminiStandIn;
let embedder: Embedder;
let directory: string;

const fastRetry = { baseDelayMs: 1, maxDelayMs: 5 };

function documents(count: number, prefix = 'chunk'): DocumentToEmbed[] {
  return Array.from({ length: count }, (_, index) => ({
    hash: `${prefix}-hash-${index}`,
    text: `${prefix} number ${index} about reducers and stores`,
    title: `Page ${index % 7}`,
  }));
}

interface BatchBody {
  requests: { taskType: string; title?: string; content: { parts: { text: string }[] } }[];
}
const batchSizes = (): number[] =>
  standIn.requests
    .filter((request) => request.path.endsWith(':batchEmbedContents'))
    .map((request) => (request.body as BatchBody).requests.length);

beforeAll(async () => {
  standIn = await startGeminiStandIn();
  embedder = createGeminiEmbedder({ apiKey: standIn.apiKey, baseUrl: standIn.url, dimensions: 64 });
});
beforeEach(async () => {
  directory = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-embedding-cache-'));
});
afterEach(async () => {
  standIn.reset();
  await fs.rm(directory, { recursive: true, force: true });
});
afterAll(() => standIn.close());

describe('createEmbeddingPipeline', () => {
  it('splits 250 documents into batches of at most 100 and returns their vectors in order', async () => {
    const pipeline = createEmbeddingPipeline({ embedder, documentRetry: fastRetry });
    const items = documents(250);
    const progress: number[] = [];
    const vectors = await pipeline.embedDocuments(items, { onProgress: (done) => progress.push(done) });
    expect(vectors).toHaveLength(250);
    expect(batchSizes().sort((left, right) => right - left)).toEqual([100, 100, 50]);
    expect(pipeline.stats).toMatchObject({ calls: 3, texts: 250, cacheHits: 0 });
    expect(progress[progress.length - 1]).toBe(250);
    // Order: the vector at index 137 is the one of text 137.
    const [alone] = await embedder.embed({ texts: [items[137]!.text], task: 'document' });
    expect(Array.from(vectors[137]!)).toEqual(Array.from(alone!));
  });

  it('makes no call at all on a second run over the same documents, even from a new process', async () => {
    const items = documents(120);
    const first = createEmbeddingPipeline({ embedder, cache: createFileEmbeddingCache({ directory, embedder }) });
    const firstVectors = await first.embedDocuments(items);
    standIn.reset();

    // A fresh cache object reads the file again, as a new ingest process would.
    const second = createEmbeddingPipeline({ embedder, cache: createFileEmbeddingCache({ directory, embedder }) });
    const secondVectors = await second.embedDocuments(items);
    expect(standIn.requests).toHaveLength(0);
    expect(second.stats).toMatchObject({ calls: 0, texts: 0, cacheHits: 120 });
    expect(secondVectors.map((vector) => Array.from(vector))).toEqual(firstVectors.map((vector) => Array.from(vector)));
    await expect(fs.readdir(directory)).resolves.toEqual(['gemini-gemini-embedding-001-64.bin']);
  });

  it('embeds only the documents whose text or title changed', async () => {
    const cache = createMemoryEmbeddingCache();
    const items = documents(10);
    await createEmbeddingPipeline({ embedder, cache }).embedDocuments(items);
    standIn.reset();
    const edited = items.map((item, index) =>
      index === 3 ? { ...item, hash: 'edited-hash', text: 'new text' } : index === 5 ? { ...item, title: 'Renamed page' } : item,
    );
    const pipeline = createEmbeddingPipeline({ embedder, cache });
    await pipeline.embedDocuments(edited);
    expect(pipeline.stats).toMatchObject({ calls: 1, texts: 2, cacheHits: 8 });
    const sent = (standIn.requests[0]!.body as BatchBody).requests.map((request) => request.content.parts[0]!.text);
    expect(sent).toEqual(['new text', items[5]!.text]);
  });

  it('embeds a document that appears twice only once', async () => {
    const [item] = documents(1);
    const pipeline = createEmbeddingPipeline({ embedder });
    const vectors = await pipeline.embedDocuments([item!, item!]);
    expect(batchSizes()).toEqual([1]);
    expect(Array.from(vectors[0]!)).toEqual(Array.from(vectors[1]!));
  });

  it('keeps every whole record when the last one was torn by a killed ingest, and keeps appending cleanly', async () => {
    const items = documents(30);
    await createEmbeddingPipeline({ embedder, cache: createFileEmbeddingCache({ directory, embedder }) }).embedDocuments(items);
    const file = path.join(directory, 'gemini-gemini-embedding-001-64.bin');
    // Half a record, as a kill in the middle of an append leaves it.
    await fs.appendFile(file, Buffer.alloc(70, 7));

    const more = documents(5, 'extra');
    const afterCrash = createEmbeddingPipeline({ embedder, cache: createFileEmbeddingCache({ directory, embedder }) });
    await afterCrash.embedDocuments([...items, ...more]);
    expect(afterCrash.stats).toMatchObject({ cacheHits: 30, texts: 5 });

    standIn.reset();
    const reloaded = createEmbeddingPipeline({ embedder, cache: createFileEmbeddingCache({ directory, embedder }) });
    await reloaded.embedDocuments([...items, ...more]);
    expect(reloaded.stats).toMatchObject({ calls: 0, cacheHits: 35 });
  });

  it('drops a last record whose checksum does not match instead of serving a damaged vector', async () => {
    const items = documents(3);
    await createEmbeddingPipeline({ embedder, cache: createFileEmbeddingCache({ directory, embedder }) }).embedDocuments(items);
    const file = path.join(directory, 'gemini-gemini-embedding-001-64.bin');
    const content = await fs.readFile(file);
    content[content.length - 10] = content[content.length - 10]! ^ 0xff;
    await fs.writeFile(file, content);
    standIn.reset();

    const pipeline = createEmbeddingPipeline({ embedder, cache: createFileEmbeddingCache({ directory, embedder }) });
    await pipeline.embedDocuments(items);
    expect(pipeline.stats).toMatchObject({ cacheHits: 2, texts: 1 });
  });

  it('keeps caches of different models or sizes apart', async () => {
    const items = documents(2);
    await createEmbeddingPipeline({ embedder, cache: createFileEmbeddingCache({ directory, embedder }) }).embedDocuments(items);
    const wider = createGeminiEmbedder({ apiKey: standIn.apiKey, baseUrl: standIn.url, dimensions: 128 });
    const pipeline = createEmbeddingPipeline({ embedder: wider, cache: createFileEmbeddingCache({ directory, embedder: wider }) });
    const vectors = await pipeline.embedDocuments(items);
    expect(pipeline.stats.cacheHits).toBe(0);
    expect(vectors[0]).toHaveLength(128);
  });

  it('retries a rate-limited batch after the delay Gemini asked for and finishes the run', async () => {
    standIn.failNext({ status: 429, retryDelay: '0.1s' });
    const retries: number[] = [];
    const pipeline = createEmbeddingPipeline({ embedder, documentRetry: fastRetry, onRetry: (info) => retries.push(info.delayMs) });
    const vectors = await pipeline.embedDocuments(documents(5));
    expect(vectors).toHaveLength(5);
    expect(retries).toEqual([100]);
    expect(pipeline.stats).toMatchObject({ calls: 2, retries: 1, texts: 5 });
  });

  it('stops at the first rejected batch without retrying it and without sending the rest', async () => {
    standIn.failNext({ status: 403, message: 'Permission denied.' });
    const pipeline = createEmbeddingPipeline({ embedder, concurrency: 1, documentRetry: fastRetry });
    const error = (await pipeline.embedDocuments(documents(300)).catch((caught: unknown) => caught)) as DocsChatError;
    expect(error).toMatchObject({ code: 'embedder_rejected', status: 403 });
    expect(standIn.requests).toHaveLength(1);
  });

  it('stops waiting for a retry as soon as the run is cancelled', async () => {
    standIn.failNext({ status: 429, retryDelay: '20s' });
    const controller = new AbortController();
    const pipeline = createEmbeddingPipeline({ embedder, documentRetry: { maxServerDelayMs: 60_000 } });
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const error = (await pipeline
      .embedDocuments(documents(3), { signal: controller.signal })
      .catch((caught: unknown) => caught)) as DocsChatError;
    expect(error.code).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('cancels the other batches in flight when one fails', async () => {
    const seen: AbortSignal[] = [];
    const failing: Embedder = {
      provider: 'test',
      model: 'slow',
      dimensions: 2,
      maxBatchSize: 1,
      embed: (request: EmbedRequest) =>
        new Promise((resolve, reject) => {
          seen.push(request.signal!);
          if (request.texts[0] === 'bad') {
            setTimeout(() => reject(Object.assign(new Error('rejected'), { status: 400 })), 10);
            return;
          }
          request.signal!.addEventListener('abort', () => reject(request.signal!.reason));
          setTimeout(() => resolve([new Float32Array([1, 0])]), 5000);
        }),
    };
    const pipeline = createEmbeddingPipeline({ embedder: failing, concurrency: 2 });
    const items = [
      { hash: 'a', text: 'slow', title: '' },
      { hash: 'b', text: 'bad', title: '' },
    ];
    await expect(pipeline.embedDocuments(items)).rejects.toThrow('rejected');
    expect(seen.every((signal) => signal.aborted)).toBe(true);
  });

  it('embeds questions as RETRIEVAL_QUERY, remembers repeated ones, and never puts them in the document cache', async () => {
    const cache = createMemoryEmbeddingCache();
    const pipeline = createEmbeddingPipeline({ embedder, cache });
    const first = await pipeline.embedQuery('how do I configure the store?');
    const again = await pipeline.embedQuery('how do I configure the store?');
    expect(Array.from(again)).toEqual(Array.from(first));
    expect(pipeline.stats.calls).toBe(1);
    expect((standIn.requests[0]!.body as BatchBody).requests[0]!.taskType).toBe('RETRIEVAL_QUERY');
    expect(cache.size).toBe(0);

    // The same text as a document is embedded again, as a document.
    await pipeline.embedDocuments([{ hash: 'h', text: 'how do I configure the store?', title: 'Store' }]);
    expect((standIn.requests[1]!.body as BatchBody).requests[0]).toMatchObject({ taskType: 'RETRIEVAL_DOCUMENT', title: 'Store' });
  });
});
