import { describe, expect, it } from '@jest/globals';
import { boundSelection } from '@docs-chat/protocol/token-budget';
import { estimateTokens, prepareSelection } from './token-estimate.js';

describe('selection token budget', () => {
  it('keeps a selection within the budget unchanged apart from surrounding space', () => {
    expect(prepareSelection('  A short passage.\r\n')).toEqual({ text: 'A short passage.', estimatedTokens: 4, truncated: false });
  });

  it('cuts a long selection exactly as the server does, so the server has nothing left to cut', () => {
    const long = 'alpha beta gamma delta '.repeat(600);
    const prepared = prepareSelection(long, 2000);
    const server = boundSelection(long, 2000);
    expect(prepared).toEqual({ text: server.text, estimatedTokens: server.originalTokens, truncated: true });
    expect(estimateTokens(prepared.text)).toBeLessThanOrEqual(2000);
    expect(boundSelection(prepared.text, 2000).truncated).toBe(false);
  });
});
