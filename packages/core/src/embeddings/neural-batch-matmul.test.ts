/**
 * The split BatchMatMul kernel of the neural embedder's worker gives the products TF.js's own WebAssembly
 * kernel gives, for every operand layout the sentence encoder uses, and leaves nothing allocated behind.
 */
import { createRequire } from 'node:module';
import { installSplitBatchMatMul } from './neural-batch-matmul.mjs';

interface Tensor {
  shape: number[];
  dataSync(): Float32Array;
  dispose(): void;
}
interface Tf {
  ready(): Promise<void>;
  getBackend(): string;
  getKernel(name: string, backend: string): unknown;
  tensor(values: Float32Array, shape: number[]): Tensor;
  matMul(a: Tensor, b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
  memory(): { numTensors: number; numBytes: number };
  engine(): { backend: { numDataIds(): number } };
}

const tf = createRequire(import.meta.url)('@energetic-ai/core') as Tf;

/** Deterministic values in [-1, 1), so a failure can be replayed. */
function values(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let state = seed;
  for (let index = 0; index < count; index += 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    out[index] = state / 1_073_741_824 - 1;
  }
  return out;
}

const product = (shape: number[]): number => shape.reduce((total, dim) => total * dim, 1);

interface Case {
  name: string;
  a: number[];
  b: number[];
  transposeA: boolean;
  transposeB: boolean;
}

const cases: Case[] = [
  // The encoder's attention scores: [texts, heads, tokens, depth] × its own transpose.
  { name: 'scores, right operand transposed', a: [2, 4, 40, 32], b: [2, 4, 40, 32], transposeA: false, transposeB: true },
  // Attention applied to the values.
  { name: 'weighted values', a: [2, 4, 40, 40], b: [2, 4, 40, 32], transposeA: false, transposeB: false },
  { name: 'left operand transposed', a: [3, 24, 16], b: [3, 24, 20], transposeA: true, transposeB: false },
  { name: 'both transposed', a: [3, 24, 16], b: [3, 20, 24], transposeA: true, transposeB: true },
  { name: 'one batch, right transposed', a: [1, 30, 24], b: [1, 20, 24], transposeA: false, transposeB: true },
  // Left to the original kernel: a broadcast batch, and a product already on XNNPACK's path.
  { name: 'broadcast batch', a: [3, 12, 8], b: [1, 8, 10], transposeA: false, transposeB: false },
  { name: 'plain 2-D product', a: [30, 24], b: [24, 20], transposeA: false, transposeB: false },
];

function multiply({ a, b, transposeA, transposeB }: Case): { out: Float32Array; shape: number[] } {
  const left = tf.tensor(values(product(a), 7), a);
  const right = tf.tensor(values(product(b), 11), b);
  const result = tf.matMul(left, right, transposeA, transposeB);
  const out = result.dataSync().slice();
  const { shape } = result;
  for (const tensor of [left, right, result]) tensor.dispose();
  return { out, shape };
}

describe('split BatchMatMul of the neural embedder', () => {
  beforeAll(async () => {
    await tf.ready();
  });

  it('runs on the WebAssembly backend the embedder uses', () => {
    expect(tf.getBackend()).toBe('wasm');
  });

  it.each(cases)('gives the original kernel’s product: $name', (testCase) => {
    const expected = multiply(testCase);
    const restore = installSplitBatchMatMul(tf);
    try {
      const tensorsBefore = tf.memory().numTensors;
      const dataBefore = tf.engine().backend.numDataIds();
      const actual = multiply(testCase);
      expect(actual.shape).toEqual(expected.shape);
      let worst = 0;
      actual.out.forEach((value, index) => {
        worst = Math.max(worst, Math.abs(value - expected.out[index]!));
      });
      expect(worst).toBeLessThan(1e-4);
      expect(actual.out.some((value) => value !== 0)).toBe(true);
      // Its temporary operands and per-batch products are all freed.
      expect(tf.memory().numTensors).toBe(tensorsBefore);
      expect(tf.engine().backend.numDataIds()).toBe(dataBefore);
    } finally {
      restore();
    }
  });

  it('puts the original kernel back when asked', () => {
    const original = tf.getKernel('BatchMatMul', 'wasm');
    const restore = installSplitBatchMatMul(tf);
    expect(tf.getKernel('BatchMatMul', 'wasm')).not.toBe(original);
    restore();
    expect(tf.getKernel('BatchMatMul', 'wasm')).toBe(original);
  });

  it('replaces nothing on a runtime without the kernel API it needs', () => {
    const restore = installSplitBatchMatMul({});
    expect(restore).toBeInstanceOf(Function);
    restore();
  });
});
