/**
 * Client-side sparse vectors for BM25 retrieval. Documents carry BM25-saturated
 * term frequencies (heading terms count extra); queries carry 1 per distinct
 * term. The store multiplies by IDF from its own statistics (Qdrant's
 * `modifier: idf`), so the score of a chunk is BM25 with a fixed average length.
 *
 * Besides single stemmed words, every pair of adjacent words is a term of its
 * own ("form_state", "store_enhanc"): a question that repeats a phrase of the
 * docs scores above one that merely shares its words, which measurably lifted
 * recall on real question sets (BM25 alone 0.73 -> 0.80 recall@5 on redux).
 */
import type { SparseVector } from '../stores/vector-store.js';
import { analyzeTerms, hashTerm } from './text-analysis.js';
import { SHARED_PROFILE } from '../profile/retrieval-profile.js';

// BM25 parameters, heading and pair weights, fixed average lengths: see `sparse` in retrieval-profile.ts for each value's source.
const {
  k1: K1,
  b: B,
  averageLength: AVERAGE_LENGTH,
  headingWeight: HEADING_WEIGHT,
  parentHeadingWeight: PARENT_HEADING_WEIGHT,
  pairWeight: PAIR_WEIGHT,
  pairBuckets: PAIR_BUCKETS,
  averagePageLength: AVERAGE_PAGE_LENGTH,
} = SHARED_PROFILE.sparse;
/**
 * The sparse vectors' format (what a term index means: hashed stemmed words, pairs in buckets). Only a
 * format change needs `--rebuild`; a change of the values above is a profile change, and the next ingest
 * re-encodes every chunk in place.
 */
export const SPARSE_ENCODER_VERSION = 'bm25-words-pairs-v2';

/** A stemmed word or an adjacent pair of them ("form_state"). */
export function pairTerm(first: string, second: string): string {
  return `${first}_${second}`;
}

/** Stemmed terms of a text followed by its adjacent-word pairs (a word repeated in place makes no pair). */
export function termsWithPairs(text: string): { words: string[]; pairs: string[] } {
  const words = analyzeTerms(text);
  const pairs: string[] = [];
  for (let i = 1; i < words.length; i++) {
    if (words[i] !== words[i - 1]) pairs.push(pairTerm(words[i - 1] as string, words[i] as string));
  }
  return { words, pairs };
}

function toSparse(weights: Map<number, number>): SparseVector {
  const indices = [...weights.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => weights.get(index) as number) };
}

function addTerm(frequencies: Map<number, number>, term: string, weight: number): void {
  const index = hashTerm(term);
  frequencies.set(index, (frequencies.get(index) ?? 0) + weight);
}

/** Sparse index of an adjacent pair (bounded: see PAIR_BUCKETS). */
export function pairIndex(pair: string): number {
  return hashTerm(pair) % PAIR_BUCKETS;
}

function addPair(frequencies: Map<number, number>, pair: string, weight: number): void {
  const index = pairIndex(pair);
  frequencies.set(index, (frequencies.get(index) ?? 0) + weight);
}

/** BM25's saturated weight of a term occurring `tf` times (heading occurrences weighted) in a text of `length` terms. */
export function saturatedWeight(tf: number, length: number, averageLength = AVERAGE_LENGTH): number {
  const lengthNorm = K1 * (1 - B + (B * Math.max(length, 1)) / averageLength);
  return Number(((tf * (K1 + 1)) / (tf + lengthNorm)).toFixed(5));
}

function saturate(frequencies: Map<number, number>, length: number, averageLength: number): SparseVector {
  const weights = new Map<number, number>();
  for (const [index, tf] of frequencies) weights.set(index, saturatedWeight(tf, length, averageLength));
  return toSparse(weights);
}

/** A chunk's term frequencies before saturation: what its sparse vector is made of. */
export interface DocumentTermCounts {
  /** Term frequency (heading occurrences weighted) by sparse index. */
  frequencies: Map<number, number>;
  /** Body length in words, for BM25's length normalisation. */
  length: number;
}

/** Term frequencies of a chunk: body terms and pairs plus heading-path terms (weighted). */
export function documentTermCounts(input: { headingPath: string[]; text: string }): DocumentTermCounts {
  const frequencies = new Map<number, number>();
  const body = termsWithPairs(input.text);
  for (const term of body.words) addTerm(frequencies, term, 1);
  for (const pair of body.pairs) addPair(frequencies, pair, PAIR_WEIGHT);
  input.headingPath.forEach((heading, position) => {
    const weight = position === input.headingPath.length - 1 ? HEADING_WEIGHT : PARENT_HEADING_WEIGHT;
    const terms = termsWithPairs(heading);
    for (const term of new Set(terms.words)) addTerm(frequencies, term, weight);
    for (const pair of new Set(terms.pairs)) addPair(frequencies, pair, weight * PAIR_WEIGHT);
  });
  return { frequencies, length: body.words.length };
}

/** Sparse vector of a chunk: its term counts, BM25-saturated. */
export function encodeDocumentSparse(input: { headingPath: string[]; text: string }): SparseVector {
  const { frequencies, length } = documentTermCounts(input);
  return saturate(frequencies, length, AVERAGE_LENGTH);
}

/**
 * Sparse vector of a whole page (its chunks' text in order, with the title):
 * page-level BM25 tells which page is about the question, a strong hint for
 * Docusaurus docs where a page is one topic and its sections are facets of it.
 * Words only: pairs added nothing at page level and would multiply its size.
 */
export function encodePageSparse(input: { title: string; texts: string[] }): SparseVector {
  const frequencies = new Map<number, number>();
  let length = 0;
  for (const text of [input.title, ...input.texts]) {
    const words = analyzeTerms(text);
    for (const term of words) addTerm(frequencies, term, 1);
    length += words.length;
  }
  return saturate(frequencies, length, AVERAGE_PAGE_LENGTH);
}

/** Adds expansion words (learned associates, see term-associations.ts) below the question's own terms. */
function addExpansions(weights: Map<number, number>, expansions: Map<string, number> | undefined): void {
  for (const [word, weight] of expansions ?? []) {
    const index = hashTerm(word);
    if (!weights.has(index)) weights.set(index, weight);
  }
}

/**
 * Sparse vector of a question: 1 per distinct analysed term and adjacent pair,
 * plus optional expansion words at their (lower) weights.
 */
export function encodeQuerySparse(query: string, expansions?: Map<string, number>): SparseVector {
  const weights = new Map<number, number>();
  const terms = termsWithPairs(query);
  for (const term of terms.words) weights.set(hashTerm(term), 1);
  for (const pair of terms.pairs) weights.set(pairIndex(pair), PAIR_WEIGHT);
  addExpansions(weights, expansions);
  return toSparse(weights);
}

/** Sparse vector of a question for the page vectors (words only, as they are), with optional expansions. */
export function encodePageQuerySparse(query: string, expansions?: Map<string, number>): SparseVector {
  const weights = new Map<number, number>();
  for (const term of analyzeTerms(query)) weights.set(hashTerm(term), 1);
  addExpansions(weights, expansions);
  return toSparse(weights);
}
