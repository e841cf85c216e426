import { countChunk, emptyTermStatistics, readTermStatistics, serializeTermStatistics, termIdf, wordIdf } from './term-statistics.js';

const chunk = (heading: string, text: string) => ({ headingPath: ['Guide', heading], text });

describe('corpus term statistics', () => {
  it('counts each word once per chunk and forgets a chunk that is removed', () => {
    const stats = emptyTermStatistics();
    countChunk(stats, chunk('Selectors', 'selectors selectors read state'), 1);
    countChunk(stats, chunk('Reducers', 'reducers update state'), 1);
    expect(stats.chunks).toBe(2);
    expect(stats.df.get('selector')).toBe(1);
    expect(stats.df.get('state')).toBe(2);
    countChunk(stats, chunk('Selectors', 'selectors selectors read state'), -1);
    expect(stats.chunks).toBe(1);
    expect(stats.df.has('selector')).toBe(false);
    expect(stats.df.get('state')).toBe(1);
  });

  it('gives a rare word more weight than a common one, and a word pair the weight of its rarer word', () => {
    const stats = emptyTermStatistics();
    for (let i = 0; i < 9; i++) countChunk(stats, chunk(`Part ${i}`, 'the store holds state'), 1);
    countChunk(stats, chunk('Enhancers', 'an enhancer wraps the store'), 1);
    expect(wordIdf(stats, 'enhanc')).toBeGreaterThan(wordIdf(stats, 'store'));
    expect(termIdf(stats, 'store_enhanc')).toBeCloseTo(wordIdf(stats, 'enhanc'), 10);
  });

  it('survives the round trip through the index meta, and ignores statistics it cannot read', () => {
    const stats = emptyTermStatistics();
    countChunk(stats, chunk('Selectors', 'memoized selectors'), 1);
    expect(readTermStatistics({ termStats: JSON.parse(JSON.stringify(serializeTermStatistics(stats))) })).toEqual(stats);
    expect(readTermStatistics({ termStats: { version: 999, chunks: 1, df: {} } })).toBeNull();
    expect(readTermStatistics(undefined)).toBeNull();
  });
});
