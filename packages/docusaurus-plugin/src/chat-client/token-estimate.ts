import { MAX_SELECTION_TOKENS } from '@docs-chat/core/protocol';

// About four characters per token for English prose: cheap and close enough to
// warn the reader; the server counts properly and truncates for real.
const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export interface PreparedSelection {
  text: string;
  estimatedTokens: number;
  truncated: boolean;
}

/** Cuts a selection to the token budget at a word boundary, saying whether it did. */
export function prepareSelection(text: string, maxTokens = MAX_SELECTION_TOKENS): PreparedSelection {
  const normalized = text.replace(/\r\n?/g, '\n').replace(/[ \t]+\n/g, '\n').trim();
  const estimatedTokens = estimateTokens(normalized);
  if (estimatedTokens <= maxTokens) return { text: normalized, estimatedTokens, truncated: false };
  const limit = maxTokens * CHARS_PER_TOKEN;
  const cut = normalized.slice(0, limit);
  const lastSpace = cut.search(/\s\S*$/);
  const truncatedText = (lastSpace > limit * 0.8 ? cut.slice(0, lastSpace) : cut).trimEnd();
  return { text: truncatedText, estimatedTokens, truncated: true };
}
