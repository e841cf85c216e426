import { countTokens } from './tokens.js';

describe('countTokens', () => {
  it('counts nothing for empty text and one token for a short common word', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello')).toBe(1);
  });

  it('counts an English sentence at roughly one token per word plus punctuation', () => {
    // cl100k encodes this sentence as 12 tokens.
    const estimate = countTokens('The reducer returns a new state object instead of changing the old one.');
    expect(estimate).toBeGreaterThanOrEqual(11);
    expect(estimate).toBeLessThanOrEqual(15);
  });

  it('charges long identifiers and numbers as several pieces', () => {
    expect(countTokens('configureStoreWithMiddlewareEnhancers')).toBeGreaterThanOrEqual(4);
    expect(countTokens('1234567890')).toBe(4);
  });

  it('charges symbols and emoji more than plain letters', () => {
    expect(countTokens('🐞🐞🐞')).toBeGreaterThan(countTokens('bug'));
  });
});
