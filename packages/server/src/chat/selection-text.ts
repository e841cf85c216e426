/**
 * Keeps a highlighted passage within the token budget of selection mode. The
 * cut falls on a word boundary and keeps the start of the passage, which is
 * what the reader saw first.
 */
import type { CountTokens } from '../core-api.js';

export interface BoundedSelection {
  text: string;
  truncated: boolean;
  /** Tokens of the passage as sent by the reader. */
  originalTokens: number;
}

export function boundSelection(selection: string, maxTokens: number, countTokens: CountTokens): BoundedSelection {
  const text = selection.trim();
  const originalTokens = countTokens(text);
  if (originalTokens <= maxTokens) return { text, truncated: false, originalTokens };
  // Binary search on the character length: token counts grow monotonically with the prefix length.
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (countTokens(text.slice(0, middle)) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  let cut = text.slice(0, low);
  const lastSpace = cut.search(/\s\S*$/);
  if (lastSpace > cut.length * 0.8) cut = cut.slice(0, lastSpace);
  return { text: cut.trimEnd(), truncated: true, originalTokens };
}
