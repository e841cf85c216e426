/**
 * Two embedders as one: each text's vectors are concatenated, scaled so the
 * cosine of two mixed vectors is `(1 - share) * cosine(first) + share *
 * cosine(second)`. The stores see one ordinary unit vector, so nothing above
 * needs to know (measured as "neural + hashing" in docs/quality/evaluation.md).
 */
import type { Embedder, EmbedRequest } from './embedder.js';

export function createMixedEmbedder(first: Embedder, second: Embedder, share: number): Embedder {
  const firstScale = Math.sqrt(1 - share);
  const secondScale = Math.sqrt(share);
  return {
    provider: first.provider,
    model: `${first.model}+${second.model}@${share}`,
    dimensions: first.dimensions + second.dimensions,
    maxBatchSize: Math.min(first.maxBatchSize, second.maxBatchSize),
    async embed(request: EmbedRequest): Promise<Float32Array[]> {
      const [a, b] = await Promise.all([first.embed(request), second.embed(request)]);
      return a.map((vector, index) => {
        const mixed = new Float32Array(first.dimensions + second.dimensions);
        for (let i = 0; i < first.dimensions; i += 1) mixed[i] = (vector[i] as number) * firstScale;
        const other = b[index] as Float32Array;
        for (let i = 0; i < second.dimensions; i += 1) mixed[first.dimensions + i] = (other[i] as number) * secondScale;
        return mixed;
      });
    },
    async close() {
      await Promise.all([first.close?.(), second.close?.()]);
    },
  };
}
