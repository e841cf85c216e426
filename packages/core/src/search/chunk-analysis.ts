/**
 * What re-ranking and the out-of-scope check need from a candidate section's
 * text, kept between questions. The same sections come back as candidates
 * question after question, and analysing their text (splitting, stemming,
 * counting) was most of a search's CPU time: 60 % of 2.3 ms per uncached redux
 * question (V8 profile; the budget is issue 16's CPU per answer, eval/src/bench-chat.ts --no-cache), and
 * counting a cited section's tokens for the context budget came next.
 *
 * Each part is computed on first use. Entries are keyed by chunk id and
 * content hash, so a re-ingested section is analysed afresh; the cache is
 * bounded and forgets the section it took in first.
 */
import type { ChunkPayload } from '../stores/vector-store.js';
import { documentTermCounts, termsWithPairs, type DocumentTermCounts } from '../text/sparse-encoder.js';
import { analyzeTerms } from '../text/text-analysis.js';
import { countTokens } from '../protocol/token-budget.js';

/** Words and adjacent pairs of a text, as a set. */
export function termSet(text: string): Set<string> {
  const { words, pairs } = termsWithPairs(text);
  return new Set([...words, ...pairs]);
}

/** Terms with their IDF weights and the weights' sum. */
export interface WeightedTerms {
  terms: readonly string[];
  weights: Float64Array;
  mass: number;
}

function weighted(terms: ReadonlySet<string>, idf: (term: string) => number): WeightedTerms {
  const list = [...terms];
  const weights = Float64Array.from(list, idf);
  let mass = 0;
  for (const weight of weights) mass += weight;
  return { terms: list, weights, mass };
}

/**
 * A number per term-statistics object, so cached weights name the statistics they came from without holding an
 * index's replaced statistics in memory.
 */
const statsNumbers = new WeakMap<object, number>();
let nextStatsNumber = 1;

function numberOf(stats: object | null): number {
  if (stats === null) return 0;
  let number = statsNumbers.get(stats);
  if (number === undefined) {
    number = nextStatsNumber++;
    statsNumbers.set(stats, number);
  }
  return number;
}

/**
 * A section's term counts in an open-addressing table of two typed arrays, at most half full. Budget: server memory
 * (issue 16, 300 MB per process): as a Map they took 10.3 KB per redux section, most of what the cache holds once
 * every section has been a candidate. A lookup is no slower than the Map's: over 200 redux sections, 0.023 ms per
 * 15-term question against 0.028 ms (a sorted array searched by bisection took 0.08 ms).
 */
export class PackedTermCounts {
  readonly #terms: Uint32Array;
  /** 0 marks an empty slot: every count is positive. */
  readonly #values: Float64Array;
  readonly #shift: number;

  constructor({ frequencies, length }: DocumentTermCounts) {
    let bits = 3;
    while (1 << bits < frequencies.size * 2) bits += 1;
    this.#terms = new Uint32Array(1 << bits);
    this.#values = new Float64Array(1 << bits);
    this.#shift = 32 - bits;
    const mask = (1 << bits) - 1;
    for (const [term, value] of frequencies) {
      // A zero count adds nothing to BM25, and zero marks an empty slot.
      if (value === 0) continue;
      let at = Math.imul(term, 0x9e3779b1) >>> this.#shift;
      while (this.#values[at] !== 0) at = (at + 1) & mask;
      this.#terms[at] = term;
      this.#values[at] = value;
    }
    this.length = length;
  }

  /** Body length in words, for BM25's length normalisation. */
  readonly length: number;

  /** The term's frequency (heading occurrences weighted), or undefined when the section lacks it. */
  get(term: number): number | undefined {
    const terms = this.#terms;
    const values = this.#values;
    const mask = terms.length - 1;
    for (let at = Math.imul(term, 0x9e3779b1) >>> this.#shift; ; at = (at + 1) & mask) {
      const value = values[at] as number;
      if (value === 0) return undefined;
      if (terms[at] === term) return value;
    }
  }
}

export class ChunkAnalysis {
  #counts: PackedTermCounts | undefined;
  #textTokens: number | undefined;
  #words: ReadonlySet<string> | undefined;
  #headingTerms: ReadonlySet<string> | null | undefined;
  #titledHeadingTerms: ReadonlySet<string> | null | undefined;
  /** Heading weights, with the number of the term statistics they were computed with (0: every term weighs 1). */
  #headingWeights: { statsNumber: number; own: WeightedTerms; titled: WeightedTerms } | undefined;

  constructor(readonly chunk: ChunkPayload) {}

  /** Term counts of the sparse encoder (words and pairs, headings weighted), for BM25 on the question's own words. */
  get counts(): PackedTermCounts {
    return (this.#counts ??= new PackedTermCounts(documentTermCounts({ headingPath: this.chunk.headingPath, text: this.chunk.text })));
  }

  /** Tokens of the text, as the context budget counts them. */
  get textTokens(): number {
    return (this.#textTokens ??= countTokens(this.chunk.text));
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

  /**
   * The heading terms, alone and after the page title, weighted by `idf`; null for a page's introduction.
   * `idf` must depend on `stats` only: the weights are kept until another index's statistics come.
   */
  headingWeights(stats: object | null, idf: (term: string) => number): { own: WeightedTerms; titled: WeightedTerms } | null {
    const own = this.headingTerms;
    const titled = this.titledHeadingTerms;
    if (own === null || titled === null) return null;
    const statsNumber = numberOf(stats);
    if (this.#headingWeights?.statsNumber !== statsNumber) {
      this.#headingWeights = { statsNumber, own: weighted(own, idf), titled: weighted(titled, idf) };
    }
    return this.#headingWeights;
  }

  private ownHeading(): string | null {
    return this.chunk.headingPath.length <= 1 ? null : (this.chunk.headingPath[this.chunk.headingPath.length - 1] as string);
  }
}

/**
 * Sections kept: more than the 1,338 sections of the redux docs, and for a
 * larger site far more than its often-asked sections. The oldest entry goes
 * first (a hit does not reorder: moving entries cost more than it saved).
 */
const CACHE_LIMIT = 2048;
const cache = new Map<string, ChunkAnalysis>();

/**
 * The analysis of a candidate section, from the cache when it was seen before with the same content.
 * A passage without a content hash (a reader's selection, a hand-made record) is analysed every time.
 */
export function analysisOf(chunk: ChunkPayload): ChunkAnalysis {
  // The text is compared too: cheap next to analysing it, and an id reused for other text can never be served stale words.
  if (typeof chunk.hash !== 'string' || chunk.hash === '') return new ChunkAnalysis(chunk);
  const known = cache.get(chunk.id);
  if (known && known.chunk.hash === chunk.hash && known.chunk.text === chunk.text) return known;
  const analysis = new ChunkAnalysis(chunk);
  if (known) cache.delete(chunk.id);
  else if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(chunk.id, analysis);
  return analysis;
}
