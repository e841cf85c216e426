import { MAX_SELECTION_TOKENS } from '@docs-chat/protocol';
import { boundSelection, countTokens } from '@docs-chat/protocol/token-budget';

// The server's own token count and cut (one rule on both sides): the passage the widget sends
// is already within the server's budget, so the server never cuts it again, and the reader
// reads one warning with one token count.

export function estimateTokens(text: string): number {
  return countTokens(text);
}

export interface PreparedSelection {
  text: string;
  /** Tokens of the whole selection, as the server counts them. */
  estimatedTokens: number;
  truncated: boolean;
}

/** Cuts a selection to the token budget at a word boundary, saying whether it did. */
export function prepareSelection(text: string, maxTokens = MAX_SELECTION_TOKENS): PreparedSelection {
  const bounded = boundSelection(text, maxTokens);
  return { text: bounded.text, estimatedTokens: bounded.originalTokens, truncated: bounded.truncated };
}
