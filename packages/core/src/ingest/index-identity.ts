/** The identity of an index: which embedder and sparse encoder built it. Mixing is refused. */
import type { Embedder } from '../embeddings/embedder.js';
import type { IndexMeta } from '../stores/vector-store.js';
import { indexMetaDifferences, indexMismatchError } from '../stores/index-meta.js';
import { SPARSE_ENCODER_VERSION } from '../text/sparse-encoder.js';

export function buildIndexMeta(embedder: Embedder): IndexMeta {
  return {
    embedderProvider: embedder.provider,
    embedderModel: embedder.model,
    dimensions: embedder.dimensions,
    sparseEncoder: SPARSE_ENCODER_VERSION,
    createdAt: new Date().toISOString(),
  };
}

/** Throws `index_mismatch` (with the `--rebuild` hint) when the index was built with other settings. */
export function checkIndexMeta(existing: IndexMeta, wanted: IndexMeta, where = ''): void {
  const differences = indexMetaDifferences(existing, wanted);
  if (differences.length > 0) throw indexMismatchError(where, differences);
}
