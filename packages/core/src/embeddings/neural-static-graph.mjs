// Runs the sentence encoder's graph with TF.js's synchronous executor. Plain
// JavaScript: it runs in the neural embedder's worker thread (see
// neural-embedder-worker.mjs), which has no TypeScript loader.
//
// The graph of Universal Sentence Encoder lite holds two `Where` ops, whose
// output size depends on the data, so TF.js only runs it with executeAsync().
// That executor walks the graph's 317 nodes through promises and allocated
// about 3.7 MB of short-lived JavaScript objects per question (V8's sampling
// heap profiler), so the worker collected garbage about once per question.
// Both `Where` ops compute index lists that follow from the token ids alone:
//   - ClipToMaxLength keeps the tokens at positions below the model's maximum
//     length (128): `Where(position < 128)`, reshaped to a list of entries;
//   - StoreMask lists the [text, position] pairs of the dense token matrix that
//     hold a token (ids above the padding value, -1), which the transformer
//     gathers and scatters around each layer; one slice of it is the positions.
// Computed here and fed to the graph as the values of those nodes, the rest of
// the graph is static and runs with execute(). The vectors are the same, bit
// for bit (neural-static-graph.test.ts); each question costs less CPU and far
// less garbage (issue 16: CPU per answer, and the event loop's pauses while the
// collector's helper threads are busy).

const PREFIX = 'module_apply_default/Encoder_en/KonaTransformer/';
const MAX_LENGTH = `${PREFIX}ClipToMaxLength/Less/y`;
const PADDING = `${PREFIX}Encode/SparseToDense/default_value`;
const KEPT_ENTRIES = `${PREFIX}ClipToMaxLength/Reshape`;
const TOKEN_COORDINATES = `${PREFIX}Encode/TransformerStack/Layer_1/TransformerLayer/FFN/StoreMask/ToInt32`;
const TOKEN_POSITIONS = `${PREFIX}Encode/TransformerStack/Layer_0/AddTimingSignal/strided_slice_2`;

function scalarWeight(graphModel, name) {
  const tensor = graphModel.weights?.[name]?.[0];
  if (!tensor) return undefined;
  const values = tensor.dataSync();
  return values.length === 1 ? Number(values[0]) : undefined;
}

/**
 * Returns `embed(texts) => Float32Array` (the texts' vectors one after the other) running the graph
 * synchronously, or null when the loaded model is not the graph this was written for (then the caller
 * keeps the model's own executeAsync path). `embeddingsModel` is what @energetic-ai/embeddings' initModel
 * gives: its `tokenizer` and its TF.js `model`.
 */
export function createStaticGraphEmbed(tf, embeddingsModel) {
  const graphModel = embeddingsModel.model;
  const tokenizer = embeddingsModel.tokenizer;
  const maxLength = scalarWeight(graphModel, MAX_LENGTH);
  const padding = scalarWeight(graphModel, PADDING);
  if (!tokenizer || typeof graphModel?.execute !== 'function' || maxLength === undefined || padding === undefined) return null;

  return function embedStatic(texts) {
    const encodings = texts.map((text) => tokenizer.encode(text));
    // A text without tokens would shrink the dense matrix (as in the model's own path): not for this one.
    if (encodings.some((ids) => ids.length === 0)) return null;
    let entries = 0;
    for (const ids of encodings) entries += ids.length;
    const sparseIndices = new Int32Array(entries * 2);
    const ids = new Int32Array(entries);
    const kept = [];
    let columns = 0;
    let entry = 0;
    encodings.forEach((encoding, text) => {
      encoding.forEach((id, position) => {
        sparseIndices[entry * 2] = text;
        sparseIndices[entry * 2 + 1] = position;
        ids[entry] = id;
        if (position < maxLength) {
          kept.push(entry);
          if (position + 1 > columns) columns = position + 1;
        }
        entry += 1;
      });
    });
    // The dense matrix's cells that hold a token, row by row (Where's order); token ids are never below 0,
    // so with the padding value of -1 that is every kept token.
    const coordinates = new Int32Array(kept.length * 2);
    const positions = new Int32Array(kept.length);
    let cell = 0;
    encodings.forEach((encoding, text) => {
      const length = Math.min(encoding.length, maxLength);
      for (let position = 0; position < length; position += 1) {
        if (!(encoding[position] > padding)) continue;
        coordinates[cell * 2] = text;
        coordinates[cell * 2 + 1] = position;
        positions[cell] = position;
        cell += 1;
      }
    });
    if (columns === 0) return null;
    const inputs = {
      indices: tf.tensor2d(sparseIndices, [entries, 2], 'int32'),
      values: tf.tensor1d(ids, 'int32'),
      [KEPT_ENTRIES]: tf.tensor1d(Int32Array.from(kept), 'int32'),
      [TOKEN_COORDINATES]: tf.tensor2d(coordinates.subarray(0, cell * 2), [cell, 2], 'int32'),
      [TOKEN_POSITIONS]: tf.tensor1d(positions.subarray(0, cell), 'int32'),
    };
    let output;
    try {
      output = graphModel.execute(inputs);
    } finally {
      for (const tensor of Object.values(inputs)) tensor.dispose();
    }
    try {
      const vectors = output.dataSync();
      // The worker transfers the buffer: it must be the vectors' own, never a view of the backend's memory.
      return vectors.byteOffset === 0 && vectors.buffer.byteLength === vectors.byteLength ? vectors : vectors.slice();
    } finally {
      output.dispose();
    }
  };
}
