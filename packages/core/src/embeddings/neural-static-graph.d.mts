/** Types of neural-static-graph.mjs (plain JavaScript, run by the neural embedder's worker thread). */
export declare function createStaticGraphEmbed(tf: unknown, embeddingsModel: unknown): ((texts: string[]) => Float32Array | null) | null;
