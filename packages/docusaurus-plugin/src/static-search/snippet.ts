/** Snippets and highlighted words for search results, from the same analysis as the index. */
import { tokenize } from './text-analysis.js';

/** Text with the character ranges to highlight, `[start, end)`, ascending and not overlapping. */
export interface HighlightedText {
  text: string;
  highlights: [number, number][];
}

/** Characters of body text shown under a result. */
export const SNIPPET_CHARS = 160;

/** Tells whether a written word matched: by its index term, or (for the word being typed) its beginning. */
export type WordMatcher = (term: string, surface: string) => boolean;

function toMatcher(matched: ReadonlySet<string> | WordMatcher): WordMatcher {
  return typeof matched === 'function' ? matched : (term) => matched.has(term);
}

function matchedRanges(text: string, matcher: WordMatcher): [number, number][] {
  const ranges: [number, number][] = [];
  for (const token of tokenize(text)) {
    if (!matcher(token.term, token.surface)) continue;
    const last = ranges.at(-1);
    // Parts of one identifier share their word's range: mark it once.
    if (last && last[0] === token.start) continue;
    ranges.push([token.start, token.end]);
  }
  return ranges;
}

/** The whole text with its matched words marked (titles, headings, the server's excerpts). */
export function highlightMatches(text: string, matched: ReadonlySet<string> | WordMatcher): HighlightedText {
  return { text, highlights: matchedRanges(text, toMatcher(matched)) };
}

/**
 * The window of about SNIPPET_CHARS characters that holds the most different
 * matched words (the start of the text when none matched), cut at word
 * boundaries, with `…` where text was left out.
 */
export function snippetOf(rawText: string, matched: ReadonlySet<string> | WordMatcher, size = SNIPPET_CHARS): HighlightedText {
  const text = rawText.replace(/\s+/g, ' ').trim();
  if (text.length <= size) return highlightMatches(text, matched);
  const matcher = toMatcher(matched);
  const tokens = tokenize(text).filter((token) => matcher(token.term, token.surface));
  let bestStart = 0;
  let bestDistinct = 0;
  for (let first = 0; first < tokens.length; first++) {
    const start = (tokens[first] as { start: number }).start;
    const distinct = new Set<string>();
    for (let index = first; index < tokens.length && (tokens[index] as { end: number }).end - start <= size; index++) {
      distinct.add((tokens[index] as { term: string }).term);
    }
    if (distinct.size > bestDistinct) {
      bestDistinct = distinct.size;
      bestStart = start;
    }
  }
  // Lead in with a little context before the first matched word, starting on a word boundary.
  let start = Math.max(0, bestStart - Math.floor(size / 5));
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space === -1 || space >= bestStart ? start : space + 1;
  }
  let end = Math.min(text.length, start + size);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + size / 2) end = space;
  }
  const prefix = start > 0 ? '…' : '';
  const suffix = end < text.length ? '…' : '';
  const window = `${prefix}${text.slice(start, end).trim()}${suffix}`;
  return highlightMatches(window, matcher);
}

/** Splits highlighted text into plain and marked pieces, in order (for rendering). */
export function highlightedPieces({ text, highlights }: HighlightedText): { text: string; marked: boolean }[] {
  const pieces: { text: string; marked: boolean }[] = [];
  let position = 0;
  for (const [start, end] of highlights) {
    if (start < position || end > text.length) continue;
    if (start > position) pieces.push({ text: text.slice(position, start), marked: false });
    pieces.push({ text: text.slice(start, end), marked: true });
    position = end;
  }
  if (position < text.length) pieces.push({ text: text.slice(position), marked: false });
  return pieces;
}
