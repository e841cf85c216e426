/**
 * Corpus term statistics kept with the index (in `IndexMeta.extra.termStats`):
 * how many chunks hold each analysed word. Search needs them for what the
 * stores' own IDF cannot give: the IDF-weighted similarity between a question
 * and a section's heading, and whether a question's informative words occur in
 * the docs at all (the out-of-scope check). The ingest updates them per chunk
 * added or removed, so they stay exact under incremental ingest.
 */
import type { Chunk } from '../markdown/document.js';
import { inverseDocumentFrequency } from '../stores/ranking.js';
import { analyzeTerms } from './text-analysis.js';

export const TERM_STATS_VERSION = 1;

export interface TermStatistics {
  /** Number of chunks counted. */
  chunks: number;
  /** Chunks holding each stemmed word (pairs are not counted: see `termIdf`). */
  df: Map<string, number>;
}

export function emptyTermStatistics(): TermStatistics {
  return { chunks: 0, df: new Map() };
}

/** The distinct words a chunk is indexed under (heading path and body). */
export function chunkWords(chunk: Pick<Chunk, 'headingPath' | 'text'>): Set<string> {
  return new Set(analyzeTerms(`${chunk.headingPath.join('\n')}\n${chunk.text}`));
}

/** Counts (`sign` 1) or uncounts (`sign` -1) one chunk. */
export function countChunk(stats: TermStatistics, chunk: Pick<Chunk, 'headingPath' | 'text'>, sign: 1 | -1): void {
  stats.chunks += sign;
  for (const word of chunkWords(chunk)) {
    const next = (stats.df.get(word) ?? 0) + sign;
    if (next > 0) stats.df.set(word, next);
    else stats.df.delete(word);
  }
}

/** IDF of a word, as the stores compute it (BM25 IDF over chunks); 0 for an empty corpus. */
export function wordIdf(stats: TermStatistics, word: string): number {
  if (stats.chunks <= 0) return 0;
  return inverseDocumentFrequency(stats.chunks, Math.min(stats.df.get(word) ?? 0, stats.chunks));
}

/**
 * IDF of a word or an adjacent pair. A pair is at least as rare as its rarer
 * word, so it takes that word's IDF: exact pair counts would make the stored
 * statistics several times larger for a small gain.
 */
export function termIdf(stats: TermStatistics, term: string): number {
  // A word may itself hold `_` (`rtk_query`): only an uncounted term is read as a pair.
  if (stats.df.has(term) || !term.includes('_')) return wordIdf(stats, term);
  const split = term.indexOf('_');
  return Math.max(wordIdf(stats, term.slice(0, split)), wordIdf(stats, term.slice(split + 1)));
}

/** JSON form stored in `IndexMeta.extra.termStats`. */
export function serializeTermStatistics(stats: TermStatistics): Record<string, unknown> {
  return {
    version: TERM_STATS_VERSION,
    chunks: stats.chunks,
    df: Object.fromEntries([...stats.df.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}

/** Reads statistics back from `IndexMeta.extra`; null when absent or from another version. */
export function readTermStatistics(extra: Record<string, unknown> | undefined): TermStatistics | null {
  const stored = extra?.termStats as { version?: unknown; chunks?: unknown; df?: unknown } | undefined;
  if (
    !stored ||
    stored.version !== TERM_STATS_VERSION ||
    typeof stored.chunks !== 'number' ||
    typeof stored.df !== 'object' ||
    stored.df === null
  ) {
    return null;
  }
  const df = new Map<string, number>();
  for (const [word, count] of Object.entries(stored.df as Record<string, unknown>)) {
    if (typeof count === 'number' && count > 0) df.set(word, count);
  }
  return { chunks: stored.chunks, df };
}
