/**
 * The `local` embedder: offline, deterministic, no model weights. It hashes
 * lexical features into a fixed-size vector (the "hashing trick"): stemmed
 * words, adjacent word pairs and character n-grams of each word, with
 * sublinear term frequency. Word pairs capture phrases ("form state"), and
 * character n-grams match inflections and compounds the stemmer misses
 * ("serializable" / "non-serializable", "middleware" / "middlewares").
 * Fused with BM25 by RRF it acts as a second, fuzzier lexical view.
 */
import type { Embedder, EmbedRequest } from './embedder.js';
import { analyzeText, hashTerm } from '../text/text-analysis.js';

export const LOCAL_EMBEDDER_MODEL = 'hashed-ngrams-v1';
const DEFAULT_DIMENSIONS = 384;
const SIGN_SEED = 0x9747b28c;

const WORD_WEIGHT = 1;
const PAIR_WEIGHT = 0.6;
const CHAR_NGRAM_WEIGHT = 0.35;
const CHAR_NGRAM = 4;

export interface LocalEmbedderOptions {
  dimensions?: number;
}

function addFeature(features: Map<string, number>, key: string, weight: number): void {
  features.set(key, (features.get(key) ?? 0) + weight);
}

/** Weighted lexical features of a text. */
export function lexicalFeatures(text: string): Map<string, number> {
  const features = new Map<string, number>();
  const tokens = analyzeText(text);
  let previous: string | null = null;
  for (const token of tokens) {
    addFeature(features, `w:${token.term}`, WORD_WEIGHT);
    if (previous !== null && previous !== token.term) addFeature(features, `p:${previous}_${token.term}`, PAIR_WEIGHT);
    previous = token.term;
    const padded = `^${token.surface}$`;
    if (padded.length > CHAR_NGRAM + 1) {
      const count = padded.length - CHAR_NGRAM + 1;
      for (let i = 0; i < count; i += 1) {
        addFeature(features, `c:${padded.slice(i, i + CHAR_NGRAM)}`, CHAR_NGRAM_WEIGHT / Math.sqrt(count));
      }
    }
  }
  return features;
}

export function embedLocally(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const [feature, weight] of lexicalFeatures(text)) {
    const index = hashTerm(feature) % dimensions;
    const sign = hashTerm(feature, SIGN_SEED) & 1 ? 1 : -1;
    // Sublinear weighting: repeating a word helps, but less and less.
    vector[index] = (vector[index] as number) + sign * (1 + Math.log(weight > 1 ? weight : 1)) * Math.min(weight, 1);
  }
  let norm = 0;
  for (let i = 0; i < dimensions; i += 1) norm += (vector[i] as number) ** 2;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dimensions; i += 1) vector[i] = (vector[i] as number) / norm;
  return vector;
}

export function createLocalEmbedder(options: LocalEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? DEFAULT_DIMENSIONS;
  return {
    provider: 'local',
    model: LOCAL_EMBEDDER_MODEL,
    dimensions,
    maxBatchSize: 1000,
    async embed(request: EmbedRequest): Promise<Float32Array[]> {
      return request.texts.map((text) => embedLocally(text, dimensions));
    },
  };
}
