/**
 * Text analysis shared by the sparse (BM25) encoder and the local embedder:
 * lower-casing, splitting code identifiers, stop words and Porter stemming.
 * Changing anything here changes every sparse vector: bump ANALYZER_VERSION (or
 * edit the stop list, which the retrieval profile hashes) and the next ingest
 * re-encodes every chunk, re-embedding nothing.
 */
import { stemmer } from 'stemmer';

export const ANALYZER_VERSION = 'analyzer-v2';

// A conventional English stop list plus question words that carry no topic.
/** The stop list, exported so the retrieval profile can hash it (a change re-encodes every sparse vector). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before being below between both ' +
    'but by can cannot could couldn did didn do does doesn doing don down during each few for from further had hadn has ' +
    'hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself just let me ' +
    'more most mustn my myself no nor not of off on once only or other ought our ours ourselves out over own same shan ' +
    'she should shouldn so some such than that the their theirs them themselves then there these they this those through ' +
    'to too under until up very was wasn we were weren what when where which while who whom why will with won would ' +
    'wouldn you your yours yourself yourselves s t d ll m re ve y also e g eg ie etc vs via may might must shall'
  ).split(' '),
);

export interface AnalyzedToken {
  /** Stemmed term. */
  term: string;
  /** The surface form, lower-cased (before stemming). */
  surface: string;
  /**
   * A digits-only piece of a dotted number (`127`, `0` and `1` of `127.0.0.1`, `8` of `8.0.0`). Search
   * terms leave it out: a version or an address is matched whole, and its pieces matched every table of
   * numbers in the docs (analyzer-v2; seven dev sets: one more typescript-eslint question in the top
   * five, nothing lost). The local embedder keeps it, so its vectors, cached and stored, stay the same.
   */
  numberPiece?: true;
}

const WORD_PATTERN = /[\p{L}\p{N}_$]+(?:[.'’][\p{L}\p{N}_$]+)*/gu;

/** Splits `configureStore`, `RTK_Query`, `useAppSelector` into their parts. */
function identifierParts(word: string): string[] {
  const parts = word
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[\s_$]+/u)
    .filter((part) => part.length > 0);
  return parts;
}

function normalise(surface: string): string | null {
  const lower = surface.toLowerCase().replace(/’/g, "'");
  if (lower.length === 0 || lower.length > 40) return null;
  if (STOP_WORDS.has(lower)) return null;
  if (/^\d+$/.test(lower) && lower.length > 4) return null;
  return lower;
}

function stem(word: string): string {
  // Keep short words, versions and dotted names (`next.js`, `v5`) as they are.
  if (word.length <= 3 || /[.\d]/.test(word)) return word;
  return stemmer(word);
}

/**
 * Tokens of a text in order. A code identifier yields its whole form and its
 * parts, so `createSlice` matches both "createSlice" and "create a slice".
 */
export function analyzeText(text: string): AnalyzedToken[] {
  const tokens: AnalyzedToken[] = [];
  for (const match of text.matchAll(WORD_PATTERN)) {
    for (const token of analyzeWord(match[0])) tokens.push(token);
  }
  return tokens;
}

/**
 * Tokens of one matched word, memoised: a corpus repeats a few thousand words
 * over and over, so this makes analysis (done for every chunk at ingest)
 * several times faster. Bounded so a long-running server cannot grow it without limit.
 */
const wordMemo = new Map<string, readonly AnalyzedToken[]>();
const WORD_MEMO_LIMIT = 200_000;

function analyzeWord(word: string): readonly AnalyzedToken[] {
  const known = wordMemo.get(word);
  if (known) return known;
  const tokens: AnalyzedToken[] = [];
  let raw = word.replace(/^[_$]+|[_$]+$/g, '');
  raw = raw.replace(/'s$/i, '').replace(/[’']/g, '');
  if (raw.length > 0) {
    const parts = identifierParts(raw);
    const whole = normalise(raw);
    if (whole !== null) tokens.push({ term: stem(whole.replace(/\.(?=[a-z]{2,4}$)/, '.')), surface: whole });
    if (parts.length > 1) {
      for (const part of parts) {
        const lower = normalise(part);
        if (lower !== null && lower !== whole) tokens.push({ term: stem(lower), surface: lower });
      }
    } else if (raw.includes('.')) {
      // `store.dispatch` also matches "dispatch".
      for (const piece of raw.split('.')) {
        const lower = normalise(piece);
        if (lower === null || lower === whole) continue;
        tokens.push(/\p{L}/u.test(lower) ? { term: stem(lower), surface: lower } : { term: lower, surface: lower, numberPiece: true });
      }
    }
  }
  if (wordMemo.size >= WORD_MEMO_LIMIT) wordMemo.clear();
  wordMemo.set(word, tokens);
  return tokens;
}

/** Stemmed search terms: every token but the digit pieces of dotted numbers. */
export function analyzeTerms(text: string): string[] {
  const terms: string[] = [];
  for (const token of analyzeText(text)) if (!token.numberPiece) terms.push(token.term);
  return terms;
}

/** 32-bit FNV-1a hash of a string: the sparse index of a term. */
export function hashTerm(term: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < term.length; i += 1) {
    hash ^= term.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
