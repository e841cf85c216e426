import { boundSelection, countTokens } from './token-budget.js';

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

describe('boundSelection (the one rule the widget and the server apply to a highlighted passage)', () => {
  it('keeps a passage within the budget, only tidying line endings and the space around it', () => {
    expect(boundSelection('  A short passage.  \r\nNext line.\r\n', 2000)).toEqual({
      text: 'A short passage.\nNext line.',
      truncated: false,
      originalTokens: countTokens('A short passage.\nNext line.'),
    });
  });

  it('cuts a long passage at a word boundary within the budget, keeping its start, and reports the tokens it had', () => {
    const long = 'alpha beta gamma delta '.repeat(600);
    const bounded = boundSelection(long, 2000);
    expect(bounded.truncated).toBe(true);
    expect(bounded.originalTokens).toBe(countTokens(long.trim()));
    expect(countTokens(bounded.text)).toBeLessThanOrEqual(2000);
    expect(countTokens(bounded.text)).toBeGreaterThan(1990);
    expect(long.startsWith(bounded.text)).toBe(true);
    expect(/\s/.test(long[bounded.text.length] ?? ' ')).toBe(true);
  });

  it('leaves a passage it already cut unchanged, so a second pass (the server after the widget) cuts nothing more', () => {
    const once = boundSelection('word '.repeat(5000), 2000);
    expect(boundSelection(once.text, 2000)).toEqual({ text: once.text, truncated: false, originalTokens: countTokens(once.text) });
  });

  it('cuts text without spaces at the budget', () => {
    const bounded = boundSelection('x'.repeat(20_000), 2000);
    expect(bounded.truncated).toBe(true);
    expect(countTokens(bounded.text)).toBeLessThanOrEqual(2000);
  });
});
