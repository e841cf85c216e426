/** Postings of row-wise (CSR) sparse vectors: distinct terms ascending, each term's rows and values one contiguous run. */
export function invertSparse(
  rowOffsets: Uint32Array,
  indices: Uint32Array,
  rowValues: Float32Array,
  count: number,
): { terms: Uint32Array; offsets: Uint32Array; slots: Uint32Array; values: Float32Array };
