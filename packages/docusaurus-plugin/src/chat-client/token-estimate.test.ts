import { describe, expect, it } from '@jest/globals';
import { estimateTokens, prepareSelection } from './token-estimate.js';

describe('selection token budget', () => {
  it('keeps a selection within the budget unchanged apart from surrounding space', () => {
    expect(prepareSelection('  A short passage.\r\n')).toEqual({ text: 'A short passage.', estimatedTokens: 4, truncated: false });
  });

  it('cuts a long selection at a word boundary within the budget and says so', () => {
    const long = 'alpha beta gamma delta '.repeat(600);
    const prepared = prepareSelection(long, 2000);
    expect(prepared.truncated).toBe(true);
    expect(prepared.estimatedTokens).toBe(estimateTokens(long.trim()));
    expect(estimateTokens(prepared.text)).toBeLessThanOrEqual(2000);
    expect(long.startsWith(prepared.text)).toBe(true);
    expect(/\s/.test(long[prepared.text.length] ?? ' ')).toBe(true);
  });

  it('cuts text without spaces at the budget', () => {
    const prepared = prepareSelection('x'.repeat(9000), 2000);
    expect(prepared.text).toHaveLength(8000);
  });
});
