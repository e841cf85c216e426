/**
 * What re-ranking and the out-of-scope check need from a candidate section's
 * text, kept between questions. The same sections come back as candidates
 * question after question, and analysing their text (splitting, stemming,
 * counting) was most of a search's CPU time: 60 % of 2.3 ms per uncached redux
 * question (V8 profile, eval/src/bench-chat.ts --no-cache budget of issue 16).
 *
 * Each part is computed on first use. Entries are keyed by chunk id and
 * content hash, so a re-ingested section is analysed afresh; the cache is
 * bounded and forgets the least recently used section first.
 */
import type { ChunkPayload } from '../stores/vector-store.js';
import { documentTermCounts, termsWithPairs, type DocumentTermCounts } from '../text/sparse-encoder.js';
import { analyzeTerms } from '../text/text-analysis.js';

/** Words and adjacent pairs of a text, as a set. */
export function termSet(text: string): Set<string> {
  const { words, pairs } = termsWithPairs(text);
  return new Set([...words, ...pairs]);
}

export class ChunkAnalysis {
  #counts: DocumentTermCounts | undefined;
  #words: ReadonlySet<string> | undefined;
  #headingTerms: ReadonlySet<string> | null | undefined;
  #titledHeadingTerms: ReadonlySet<string> | null | undefined;

  constructor(private readonly chunk: ChunkPayload) {}

  /** Term counts of the sparse encoder (words and pairs, headings weighted), for BM25 on the question's own words. */
  get counts(): DocumentTermCounts {
    return (this.#counts ??= documentTermCounts({ headingPath: this.chunk.headingPath, text: this.chunk.text }));
  }

  /** Stemmed words of the heading path and the text. */
  get words(): ReadonlySet<string> {
    return (this.#words ??= new Set(analyzeTerms(`${this.chunk.headingPath.join('\n')}\n${this.chunk.text}`)));
  }

  /** Words and pairs of the section's own heading; null for a page's introduction. */
  get headingTerms(): ReadonlySet<string> | null {
    if (this.#headingTerms === undefined) {
      const heading = this.ownHeading();
      this.#headingTerms = heading === null ? null : termSet(heading);
    }
    return this.#headingTerms;
  }

  /** Words and pairs of the page title followed by the section's heading; null for a page's introduction. */
  get titledHeadingTerms(): ReadonlySet<string> | null {
    if (this.#titledHeadingTerms === undefined) {
      const heading = this.ownHeading();
      this.#titledHeadingTerms = heading === null ? null : termSet(`${this.chunk.title} ${heading}`);
    }
    return this.#titledHeadingTerms;
  }

  private ownHeading(): string | null {
    return this.chunk.headingPath.length <= 1 ? null : (this.chunk.headingPath[this.chunk.headingPath.length - 1] as string);
  }
}

/** Sections kept: a few times the candidates of one search, well above what a docs site's popular sections add up to. */
const CACHE_LIMIT = 2048;
const cache = new Map<string, ChunkAnalysis>();

/** The analysis of a candidate section, from the cache when it was seen before. */
export function analysisOf(chunk: ChunkPayload): ChunkAnalysis {
  const key = `${chunk.id}\u0000${chunk.hash}`;
  const known = cache.get(key);
  if (known) {
    // Most recently used last, so the first key is the one to forget.
    cache.delete(key);
    cache.set(key, known);
    return known;
  }
  const analysis = new ChunkAnalysis(chunk);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, analysis);
  return analysis;
}
