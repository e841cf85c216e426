/** Types of neural-batch-matmul.mjs (plain JavaScript, run by the neural embedder's worker thread). */
export declare const MIN_MULTIPLY_ADDS_TO_SPLIT: number;
export declare function installSplitBatchMatMul(tf: unknown, options?: { minMultiplyAdds?: number }): () => void;
