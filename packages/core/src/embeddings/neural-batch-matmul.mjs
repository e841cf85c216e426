// A faster BatchMatMul for the WebAssembly backend of @energetic-ai/core 0.2.0 (TensorFlow.js), used by the
// neural embedder's worker (neural-embedder-worker.mjs). Plain JavaScript for the same reason as that worker.
//
// TF.js's WebAssembly BatchMatMul hands a product to XNNPACK only when it has one batch and no transposed
// operand; every other product runs a scalar triple loop. The sentence encoder's attention multiplies per head
// (a batch of texts × 4 heads, one operand transposed), so that loop took about a third of the time of a
// chunk-sized text (measured on 8 × 128-token chunks: 275 of 822 ms per batch). Here such a product is split
// into one single-batch product per head, each of which takes XNNPACK's path; the vectors are the same to
// within float rounding (max difference 2e-7, cosine 1 - 1e-12, on 37 redux chunks). A question's products
// are small (about 26 × 128 × 26 multiply-adds per head), yet splitting them still saves CPU: 5-6 % per question
// embedded alone and 9-11 % in batches of 8 (redux questions, 150 batches each way, interleaved).
//
// Budget: issue 10's first neural ingest of the redux corpus in under 90 s on 2 cores, missed on a slow host
// (92-94 s on 2026-11-29); with this kernel a chunk embeds about 30 % faster and that ingest took 67-77 s.
// No maintained package offers this: TF.js's own WebAssembly backend has the same scalar path.

const product = (dims) => dims.reduce((total, dim) => total * dim, 1);

/**
 * Replaces the backend's BatchMatMul kernel with one that splits batched or transposed products into
 * single-batch XNNPACK products. Returns a function that puts the original kernel back. When the runtime
 * does not expose what this needs (another version), nothing is replaced and that function does nothing.
 */
export function installSplitBatchMatMul(tf) {
  const original = tf.getKernel?.('BatchMatMul', 'wasm');
  const transpose = tf.getKernel?.('Transpose', 'wasm')?.kernelFunc;
  const backend = tf.findBackend?.('wasm');
  const usable =
    original &&
    transpose &&
    typeof tf.registerKernel === 'function' &&
    typeof tf.unregisterKernel === 'function' &&
    typeof backend?.typedArrayFromHeap === 'function' &&
    typeof backend?.makeOutput === 'function';
  if (!usable) {
    return () => {};
  }

  function splitBatchMatMul(args) {
    const { inputs, backend: wasm, attrs } = args;
    const { a, b } = inputs;
    const { transposeA, transposeB } = attrs;
    const rank = a.shape.length;
    const batch = product(a.shape.slice(0, -2));
    const m = transposeA ? a.shape[rank - 1] : a.shape[rank - 2];
    const k = transposeA ? a.shape[rank - 2] : a.shape[rank - 1];
    const n = transposeB ? b.shape[b.shape.length - 2] : b.shape[b.shape.length - 1];
    const alreadyFast = batch === 1 && !transposeA && !transposeB;
    const sameBatches = b.shape.length === rank && a.shape.slice(0, -2).every((dim, index) => dim === b.shape[index]);
    if (alreadyFast || !sameBatches || a.dtype !== 'float32' || b.dtype !== 'float32') {
      return original.kernelFunc(args);
    }
    // Both operands as [batch, rows, columns] in memory order, then with the transposes applied.
    const asBatches = (tensor, rows, columns) => ({ dataId: tensor.dataId, shape: [batch, rows, columns], dtype: 'float32' });
    const temporary = [];
    let left = asBatches(a, transposeA ? k : m, transposeA ? m : k);
    let right = asBatches(b, transposeB ? n : k, transposeB ? k : n);
    if (transposeA) temporary.push((left = transpose({ inputs: { x: left }, backend: wasm, attrs: { perm: [0, 2, 1] } })));
    if (transposeB) temporary.push((right = transpose({ inputs: { x: right }, backend: wasm, attrs: { perm: [0, 2, 1] } })));
    const out = wasm.makeOutput([...a.shape.slice(0, -2), m, n], 'float32');
    try {
      for (let index = 0; index < batch; index += 1) {
        const leftPart = wasm.makeOutput([1, m, k], 'float32');
        const rightPart = wasm.makeOutput([1, k, n], 'float32');
        // Views into WebAssembly memory are taken afresh after each allocation: a growing memory detaches old ones.
        wasm.typedArrayFromHeap(leftPart).set(wasm.typedArrayFromHeap(left).subarray(index * m * k, (index + 1) * m * k));
        wasm.typedArrayFromHeap(rightPart).set(wasm.typedArrayFromHeap(right).subarray(index * k * n, (index + 1) * k * n));
        const part = original.kernelFunc({
          inputs: { a: leftPart, b: rightPart },
          backend: wasm,
          attrs: { ...attrs, transposeA: false, transposeB: false },
        });
        wasm.typedArrayFromHeap(out).set(wasm.typedArrayFromHeap(part), index * m * n);
        // Disposing the right operand also frees the XNNPACK operator cached on it.
        for (const done of [leftPart, rightPart, part]) wasm.disposeData(done.dataId);
      }
    } catch (error) {
      wasm.disposeData(out.dataId);
      throw error;
    } finally {
      for (const done of temporary) wasm.disposeData(done.dataId);
    }
    return out;
  }

  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({ ...original, kernelFunc: splitBatchMatMul });
  return () => {
    tf.unregisterKernel('BatchMatMul', 'wasm');
    tf.registerKernel(original);
  };
}
