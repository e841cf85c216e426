/**
 * Text analysis of the in-browser search: words, code identifiers split into
 * their parts, stop words, Porter stemming of English words and character
 * bigrams for Chinese and Japanese (written without spaces). The same code runs
 * over the index when the browser loads it, over the reader's query, and over
 * result text to highlight the words that matched, so the three always agree.
 *
 * It mirrors the server's analyzer (packages/core/src/text/text-analysis.ts)
 * without importing it: the plugin ships without @docs-chat/core, whose
 * markdown parser and SDKs have no place in a reader's browser.
 */
import { stemmer } from 'stemmer';

// A conventional English stop list plus question words that carry no topic (the server's list).
const STOP_WORDS = new Set(
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

/** One analysed word: `term` is what the index holds, `surface` the lower-cased word before stemming. */
export interface Token {
  term: string;
  surface: string;
  /** Offsets of the whole written word in the analysed text (identifier parts share their word's offsets). */
  start: number;
  end: number;
}

// Letters with their combining marks (Devanagari vowel signs, accents), digits, and code names
// with dots or apostrophes inside (`store.dispatch`, `don't`).
const WORD_PATTERN = /[\p{L}\p{M}\p{N}_$]+(?:[.'’][\p{L}\p{M}\p{N}_$]+)*/gu;
const WORD_SCANNER = new RegExp(WORD_PATTERN.source, 'gu');
const BIGRAM_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const MAX_WORD_LENGTH = 40;

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

function identifierParts(word: string): string[] {
  return word
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[\s_$]+/u)
    .filter((part) => part.length > 0);
}

function normalise(surface: string): string | null {
  const lower = surface.toLowerCase().replace(/’/g, "'");
  if (lower.length === 0 || lower.length > MAX_WORD_LENGTH) return null;
  if (STOP_WORDS.has(lower)) return null;
  if (/^\d+$/.test(lower) && lower.length > 4) return null;
  return lower;
}

// "Store", "store" and "STORE" are three written words but one stem: stem each lower-cased word once.
const stemMemo = new Map<string, string>();

/** The index term of a lower-cased word: English words are stemmed; short words, versions and dotted names stay. */
export function termOf(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let stem = stemMemo.get(word);
  if (stem === undefined) {
    stem = stemmer(word);
    if (stemMemo.size >= WORD_MEMO_LIMIT) stemMemo.clear();
    stemMemo.set(word, stem);
  }
  return stem;
}

/** Chinese and Japanese runs become overlapping character pairs (a lone character stays itself). */
function bigrams(run: string): string[] {
  const characters = Array.from(run);
  if (characters.length < 2) return characters;
  const pairs: string[] = [];
  for (let index = 0; index + 1 < characters.length; index++) pairs.push(`${characters[index]}${characters[index + 1]}`);
  return pairs;
}

interface WordAnalysis {
  terms: readonly { term: string; surface: string }[];
}

// Docs repeat a few thousand words over and over; analysing each distinct word once makes
// loading the index several times faster. Bounded so a long session cannot grow it without limit.
const wordMemo = new Map<string, WordAnalysis>();
const WORD_MEMO_LIMIT = 100_000;

function analyzeWord(word: string): WordAnalysis {
  const known = wordMemo.get(word);
  if (known) return known;
  const terms: { term: string; surface: string }[] = [];
  const raw = word
    .replace(/^[_$]+|[_$]+$/g, '')
    .replace(/'s$/i, '')
    .replace(/[’']/g, '');
  if (raw.length > 0) {
    if (BIGRAM_SCRIPT.test(raw)) {
      for (const piece of raw.split(/([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+)/u)) {
        if (piece === '') continue;
        if (BIGRAM_SCRIPT.test(piece)) for (const pair of bigrams(piece)) terms.push({ term: pair, surface: pair });
        else {
          const lower = normalise(piece);
          if (lower !== null) terms.push({ term: termOf(lower), surface: lower });
        }
      }
    } else {
      const whole = normalise(raw);
      if (whole !== null) terms.push({ term: termOf(whole), surface: whole });
      // Most words are plain lower-case words: no identifier to split (saves three regular expressions a word).
      const parts = /^[a-z0-9]+$/.test(raw) ? [raw] : identifierParts(raw);
      // `createSlice` also matches "create" and "slice"; `store.dispatch` also matches "dispatch".
      const pieces = parts.length > 1 ? parts : raw.includes('.') ? raw.split('.') : [];
      for (const piece of pieces) {
        const lower = normalise(piece);
        if (lower !== null && lower !== whole) terms.push({ term: termOf(lower), surface: lower });
      }
    }
  }
  const analysis = { terms };
  if (wordMemo.size >= WORD_MEMO_LIMIT) wordMemo.clear();
  wordMemo.set(word, analysis);
  return analysis;
}

/** Every token of a text in reading order, with the offsets of the word it came from. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(WORD_PATTERN)) {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    for (const { term, surface } of analyzeWord(match[0]).terms) tokens.push({ term, surface, start, end });
  }
  return tokens;
}

/** Every written word of a text, in order: the fast path used while loading the index (see termsOfWord). */
export function forEachWord(text: string, visit: (word: string) => void): void {
  // One compiled pattern driven by lastIndex (not matchAll, not a new RegExp per text): this runs over
  // every section while the index loads. `visit` must not call forEachWord again.
  WORD_SCANNER.lastIndex = 0;
  for (let match = WORD_SCANNER.exec(text); match !== null; match = WORD_SCANNER.exec(text)) visit(match[0]);
}

/** The index terms of one written word found by forEachWord, with their lower-cased forms. */
export function termsOfWord(word: string): readonly { term: string; surface: string }[] {
  return analyzeWord(word).terms;
}

/** True when the text ends inside a word: the reader may still be typing it, so it also matches as a prefix. */
export function endsInsideWord(text: string): boolean {
  return /[\p{L}\p{M}\p{N}_$]$/u.test(text);
}
