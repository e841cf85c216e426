/**
 * Client-side re-ranking of the hybrid candidates. Both stores return the same
 * raw material (fused candidates with payloads, raw BM25 and dense scores, and
 * page-level BM25 scores), so the final order is identical on both.
 *
 * Reciprocal rank fusion throws away how far apart scores are, and with the
 * offline embedder the dense list is much weaker than BM25, so RRF let it drag
 * good BM25 hits down (recall@5 0.67 fused vs 0.73 BM25 alone on redux). A
 * score-level blend keeps BM25 in charge and lets the other signals reorder
 * close calls: measured on three question sets (redux, typescript-eslint and
 * our own docs), each signal below helped on all three.
 */
import type { ChunkPayload, HybridResult, RawHit } from '../stores/vector-store.js';
import { pairIndex, saturatedWeight, termsWithPairs } from '../text/sparse-encoder.js';
import { hashTerm } from '../text/text-analysis.js';
import { termIdf } from '../text/term-statistics.js';
import type { TermStatistics } from '../text/term-statistics.js';
import type { RankingProfile } from '../profile/retrieval-profile.js';
import { analysisOf, termSet, type WeightedTerms } from './chunk-analysis.js';

/** The weights (retrieval-profile.ts, `ranking`): BM25 share ** sparseExponent, heading, page and dense weights. */
export type RerankWeights = Pick<RankingProfile, 'sparseExponent' | 'headingWeight' | 'pageWeight' | 'denseWeight' | 'denseFloor'>;

export interface RankedCandidate {
  id: string;
  score: number;
  payload: ChunkPayload;
}

/**
 * IDF-weighted cosine between the question's terms and the terms of the
 * chunk's own heading (the page title for a page's intro): 1 when they are the
 * same informative words, small when the heading only shares a common word.
 */
export function headingSimilarity(queryTerms: Set<string>, queryMass: number, heading: WeightedTerms): number {
  if (heading.mass <= 0 || queryMass <= 0) return 0;
  let shared = 0;
  heading.terms.forEach((term, index) => {
    if (queryTerms.has(term)) shared += heading.weights[index] as number;
  });
  return shared / Math.sqrt(heading.mass * queryMass);
}

/** Heading similarity of a chunk: its own heading, alone or with its page title, whichever matches better; 0 for a page intro. */
function sectionHeadingSimilarity(
  queryTerms: Set<string>,
  queryMass: number,
  chunk: ChunkPayload,
  stats: TermStatistics | null,
  idf: (term: string) => number,
): number {
  const headings = analysisOf(chunk).headingWeights(stats, idf);
  if (headings === null) return 0;
  return Math.max(headingSimilarity(queryTerms, queryMass, headings.own), headingSimilarity(queryTerms, queryMass, headings.titled));
}

/** A term's IDF computed once per question: the candidates' headings repeat the same few terms. */
function memoised(idf: (term: string) => number): (term: string) => number {
  const known = new Map<string, number>();
  return (term) => {
    let value = known.get(term);
    if (value === undefined) {
      value = idf(term);
      known.set(term, value);
    }
    return value;
  };
}

export function rerankCandidates(
  query: string,
  result: HybridResult,
  stats: TermStatistics | null,
  weights: RerankWeights,
): RankedCandidate[] {
  // Without statistics (an index from before they existed) every term weighs the same.
  const idf = stats ? memoised((term: string) => termIdf(stats, term)) : () => 1;
  const queryTerms = termSet(query);
  let queryMass = 0;
  for (const term of queryTerms) queryMass += idf(term);

  const sparse = new Map(result.sparse.map((hit) => [hit.id, hit.score]));
  const dense = new Map(result.dense.map((hit) => [hit.id, hit.score]));
  const pages = new Map(result.pages.map((hit) => [hit.file, hit.score]));
  const bestSparse = result.sparse[0]?.score ?? 0;
  const bestDense = result.dense[0]?.score ?? 0;
  const bestPage = result.pages[0]?.score ?? 0;
  // A candidate missing from the dense list scored at most the list's last cosine.
  const denseFloor = result.dense[result.dense.length - 1]?.score ?? 0;
  // Cosines rescaled so the embedder's "unrelated" level is 0 and the best candidate 1.
  const denseSpan = bestDense - weights.denseFloor;

  const scored = result.fused.map((candidate, position) => {
    const score =
      (bestSparse > 0 ? ((sparse.get(candidate.id) ?? 0) / bestSparse) ** weights.sparseExponent : 0) +
      weights.headingWeight * sectionHeadingSimilarity(queryTerms, queryMass, candidate.payload, stats, idf) +
      weights.pageWeight * (bestPage > 0 ? (pages.get(candidate.payload.file) ?? 0) / bestPage : 0) +
      weights.denseWeight * (denseSpan > 0 ? Math.max((dense.get(candidate.id) ?? denseFloor) - weights.denseFloor, 0) / denseSpan : 0);
    return { candidate, score, position };
  });
  // Ties keep the fused (RRF) order, which both stores make reproducible.
  scored.sort((a, b) => b.score - a.score || a.position - b.position);
  return scored.map(({ candidate, score }) => ({ id: candidate.id, score, payload: candidate.payload }));
}

/**
 * BM25 scores of the candidates for the question's own words, without the
 * expansion words the store was queried with. The out-of-scope check asks
 * whether the docs hold what the question literally says, so it ranks on
 * these. Computed from the payloads with the same sparse encoder and the
 * index's word statistics, so both stores give the same answer.
 */
export function literalSparseHits(query: string, result: HybridResult, stats: TermStatistics | null): RawHit[] {
  const idf = stats ? (term: string) => termIdf(stats, term) : () => 1;
  const { words, pairs } = termsWithPairs(query);
  const weights = new Map<number, number>();
  for (const word of words) weights.set(hashTerm(word), idf(word));
  for (const pair of pairs) weights.set(pairIndex(pair), idf(pair));
  // Plain arrays for the loop over every candidate: iterating the map there made an entry array per term and candidate.
  const indices = [...weights.keys()];
  const termWeights = [...weights.values()];
  const hits: RawHit[] = [];
  for (const candidate of result.fused) {
    const counts = analysisOf(candidate.payload).counts;
    // Only the question's own terms are saturated: the values the chunk's whole vector holds for them.
    let score = 0;
    for (let term = 0; term < indices.length; term++) {
      const tf = counts.get(indices[term] as number);
      if (tf !== undefined) score += (termWeights[term] as number) * saturatedWeight(tf, counts.length);
    }
    if (score > 0) hits.push({ id: candidate.id, score });
  }
  return hits.sort((a, b) => b.score - a.score);
}
