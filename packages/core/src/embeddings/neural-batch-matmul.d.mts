/** Types of neural-batch-matmul.mjs (plain JavaScript, run by the neural embedder's worker thread). */
export declare function installSplitBatchMatMul(tf: unknown): () => void;
