import { expandWords, learnTermAssociations, readTermAssociations, serializeTermAssociations } from './term-associations.js';
import { analyzeTerms } from './text-analysis.js';

// A small corpus in which "interceptor" only ever appears next to "middleware".
const chunks = [
  'A middleware is an interceptor around dispatch: the middleware sees every action first.',
  'Write the middleware as an interceptor that logs each action before the reducer runs.',
  'Every interceptor you add is a middleware; order the middleware chain carefully.',
  'The reducer returns new state for each action; keep the reducer pure.',
  'Selectors read state; memoize selectors so components render less.',
  'Memoize expensive selectors once.',
  'Memoize the selectors that derive lists, because components re-render when selectors return new arrays.',
  'The store holds the state tree; subscribe to the store to hear about changes.',
].map((text) => analyzeTerms(text));

describe('term associations learned from the docs', () => {
  it('links words the docs keep using together', () => {
    const associations = learnTermAssociations(chunks);
    expect(associations.get('interceptor')?.map(([word]) => word)).toContain('middlewar');
    expect(associations.get('selector')?.map(([word]) => word)).toContain('memoiz');
  });

  it('does not link words that only met once', () => {
    const associations = learnTermAssociations(chunks);
    expect(associations.get('subscrib')?.map(([word]) => word) ?? []).not.toContain('hear');
  });

  it('expands a question with the associates of its words at a lower weight, leaving its own words alone', () => {
    const associations = learnTermAssociations(chunks);
    const extra = expandWords(analyzeTerms('my dispatch interceptor misbehaves'), associations, 0.4);
    expect(extra.get('middlewar')).toBeGreaterThan(0);
    expect(extra.get('middlewar')).toBeLessThanOrEqual(0.4);
    expect(extra.has('interceptor')).toBe(false);
    expect(expandWords(['interceptor'], null, 0.4).size).toBe(0);
  });

  it('survives the round trip through the index meta', () => {
    const associations = learnTermAssociations(chunks);
    const restored = readTermAssociations({ termAssociations: serializeTermAssociations(associations) });
    expect(restored).toEqual(associations);
    expect(readTermAssociations({ termAssociations: { version: 99, table: {} } })).toBeNull();
    expect(readTermAssociations(undefined)).toBeNull();
  });

  it('is deterministic', () => {
    expect(serializeTermAssociations(learnTermAssociations(chunks))).toEqual(serializeTermAssociations(learnTermAssociations(chunks)));
  });
});
