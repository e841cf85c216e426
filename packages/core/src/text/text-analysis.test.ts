import { analyzeTerms, analyzeText, hashTerm } from './text-analysis.js';

describe('text analysis', () => {
  it('drops stop words and stems the rest so "reducers" matches "reducer"', () => {
    expect(analyzeTerms('How do I write the reducers?')).toEqual(['write', 'reduc']);
    expect(analyzeTerms('reducer')).toEqual(['reduc']);
  });

  it('splits code identifiers so configureStore also matches "configure the store"', () => {
    const terms = analyzeTerms('Call configureStore once');
    expect(terms).toContain('configurestor');
    expect(terms).toContain('configur');
    expect(terms).toContain('store');
  });

  it('keeps dotted names and versions whole and also their parts', () => {
    const terms = analyzeTerms('Use store.dispatch with Next.js 14');
    expect(terms).toEqual(expect.arrayContaining(['store.dispatch', 'dispatch', 'next.js', '14']));
  });

  it('keeps an address or a version whole without its digit pieces as search terms, while the hashing embedder still sees them', () => {
    expect(analyzeTerms('connect ECONNREFUSED 127.0.0.1:6333')).toEqual(['connect', 'econnrefus', '127.0.0.1', '6333']);
    expect(analyzeTerms('upgrade to v8.0.0')).toEqual(['upgrad', 'v8.0.0', 'v8']);
    // The local embedder's features, and so every vector it stored or cached, are unchanged.
    expect(analyzeText('127.0.0.1').map((token) => token.surface)).toEqual(['127.0.0.1', '127', '0', '0', '1']);
  });

  it('hashes a term to the same unsigned 32-bit index every time', () => {
    expect(hashTerm('reduc')).toBe(hashTerm('reduc'));
    expect(hashTerm('reduc')).not.toBe(hashTerm('store'));
    expect(hashTerm('reduc')).toBeGreaterThanOrEqual(0);
    expect(hashTerm('reduc')).toBeLessThan(2 ** 32);
  });
});
