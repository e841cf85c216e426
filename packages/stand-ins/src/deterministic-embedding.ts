/**
 * Embeddings a stand-in can compute without a model: the sum of one
 * pseudo-random vector per word, so the same text always gets the same vector
 * and texts that share words point in similar directions. The result is
 * deliberately NOT unit length, like Gemini's at reduced dimensions, so that
 * clients must normalise it themselves.
 */

const wordVectorCache = new Map<string, Float64Array>();
const WORD_CACHE_LIMIT = 50_000;

export function deterministicEmbedding(text: string, dimensions: number): number[] {
  const sum = new Float64Array(dimensions);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  // A text without words still gets a stable, non-zero vector.
  const terms = words.length > 0 ? words : [`\u0000${text}`];
  for (const term of terms) {
    const vector = wordVector(term, dimensions);
    for (let index = 0; index < dimensions; index += 1) sum[index]! += vector[index]!;
  }
  const scale = 3 / Math.sqrt(terms.length);
  return Array.from(sum, (value) => Math.round(value * scale * 1e6) / 1e6);
}

function wordVector(word: string, dimensions: number): Float64Array {
  const cacheKey = `${dimensions}:${word}`;
  const cached = wordVectorCache.get(cacheKey);
  if (cached) return cached;
  const random = mulberry32(fnv1a(word));
  const vector = new Float64Array(dimensions);
  for (let index = 0; index < dimensions; index += 1) vector[index] = random() * 2 - 1;
  if (wordVectorCache.size >= WORD_CACHE_LIMIT) wordVectorCache.clear();
  wordVectorCache.set(cacheKey, vector);
  return vector;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
