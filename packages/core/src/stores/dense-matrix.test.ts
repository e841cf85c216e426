import { readFile } from 'node:fs/promises';
import { DenseMatrix } from './dense-matrix.js';

/** Deterministic pseudo-random floats in [-1, 1). */
function randomVector(length: number, seed: number): Float32Array {
  let state = seed >>> 0 || 1;
  return Float32Array.from({ length }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  });
}

function referenceDot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

describe('dense matrix scan', () => {
  it('runs in WebAssembly SIMD on this runtime', () => {
    expect(new DenseMatrix(384, 1).accelerated).toBe(true);
    // Rows that are not whole 16-byte lanes fall back to JavaScript.
    expect(new DenseMatrix(6, 1).accelerated).toBe(false);
  });

  it.each([4, 8, 12, 16, 20, 60, 384, 768, 6])(
    'scores every row as the plain dot product (%i dimensions), in SIMD and in JavaScript',
    (dimensions) => {
      const rows = Array.from({ length: 37 }, (_, slot) => randomVector(dimensions, slot + 1));
      const query = randomVector(dimensions, 999);
      for (const javascriptOnly of [false, true]) {
        const matrix = new DenseMatrix(dimensions, 1, { javascriptOnly });
        rows.forEach((row, slot) => matrix.setRow(slot, row));
        const scores = Array.from(matrix.scores(query, rows.length));
        rows.forEach((row, slot) => expect(scores[slot]).toBeCloseTo(referenceDot(query, row), 4));
        // Only the rows asked for are scored.
        expect(matrix.scores(query, 5)).toHaveLength(5);
      }
    },
  );

  it('keeps rows in place when it grows, and moves a row on copyRow', () => {
    const matrix = new DenseMatrix(8, 1);
    const first = randomVector(8, 1);
    matrix.setRow(0, first);
    for (let slot = 1; slot < 5000; slot++) matrix.setRow(slot, randomVector(8, slot + 1));
    expect(Array.from(matrix.rows(1))).toEqual(Array.from(first));
    matrix.copyRow(4999, 0);
    expect(Array.from(matrix.rows(1))).toEqual(Array.from(randomVector(8, 5000)));
    expect(matrix.scores(first, 5000)[1]).toBeCloseTo(referenceDot(first, randomVector(8, 2)), 4);
  });

  it('fills rows read in place through bytes()', () => {
    const matrix = new DenseMatrix(4, 1);
    const source = new Float32Array([1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0]);
    matrix.bytes(3).set(new Uint8Array(source.buffer));
    expect(Array.from(matrix.scores(new Float32Array([1, 1, 1, 1]), 3))).toEqual([1, 2, 3]);
  });

  it('ships the bytes its WebAssembly source compiles to', async () => {
    const { compileDenseScan, renderModule } = await import('../../scripts/build-wasm.mjs');
    const committed = await readFile(new URL('./dense-scan-wasm.ts', import.meta.url), 'utf8');
    expect(committed).toBe(renderModule(await compileDenseScan()));
  });
});
