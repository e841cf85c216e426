import type { ChunkPayload } from '../stores/vector-store.js';
import { documentTermCounts } from '../text/sparse-encoder.js';
import { hashTerm } from '../text/text-analysis.js';
import { analysisOf } from './chunk-analysis.js';

function chunk(id: string, text: string, headingPath = ['Store Setup', 'Configure the store']): ChunkPayload {
  return {
    id,
    file: 'setup.md',
    docId: 'setup',
    title: headingPath[0] as string,
    heading: headingPath.length > 1 ? (headingPath.at(-1) as string) : null,
    headingPath,
    depth: headingPath.length,
    anchor: headingPath.length > 1 ? 'configure-the-store' : null,
    url: '/setup#configure-the-store',
    pageUrl: '/setup',
    part: 0,
    text,
    indexText: `${headingPath.join(' > ')}\n\n${text}`,
    tokens: 10,
    hash: `hash-of-${text}`,
    fileHash: 'file-hash',
    order: 0,
  };
}

describe('analysis of candidate sections', () => {
  it("keeps every term count of the sparse encoder, and no others, for BM25 on the question's words", () => {
    const section = chunk('counts', 'Configure the store once. The store holds state; reducers update state with actions.');
    const expected = documentTermCounts({ headingPath: section.headingPath, text: section.text });
    const counts = analysisOf(section).counts;
    expect(expected.frequencies.size).toBeGreaterThan(10);
    for (const [term, frequency] of expected.frequencies) expect(counts.get(term)).toBe(frequency);
    expect(counts.length).toBe(expected.length);
    const absent = hashTerm('zebra');
    expect(expected.frequencies.has(absent)).toBe(false);
    expect(counts.get(absent)).toBeUndefined();
  });

  it('gives the stemmed words of the heading path and the text', () => {
    const words = analysisOf(chunk('a', 'Reducers update the state immutably.')).words;
    expect([...words]).toEqual(expect.arrayContaining(['store', 'configur', 'reduc', 'updat', 'state', 'immut']));
    expect(words.has('the')).toBe(false);
  });

  it('analyses a re-ingested section afresh when its text changed under the same id', () => {
    expect(analysisOf(chunk('b', 'Middleware wraps dispatch.')).words.has('middlewar')).toBe(true);
    const edited = analysisOf(chunk('b', 'Thunks run async logic.')).words;
    expect(edited.has('middlewar')).toBe(false);
    expect(edited.has('thunk')).toBe(true);
  });

  it('has no heading terms for a page introduction, and heading terms with and without the page title for a section', () => {
    expect(analysisOf(chunk('c', 'Intro text.', ['Store Setup'])).headingTerms).toBeNull();
    const section = analysisOf(chunk('d', 'Body.'));
    expect([...(section.headingTerms ?? [])]).toEqual(expect.arrayContaining(['configur', 'store']));
    expect(section.headingTerms?.has('setup')).toBe(false);
    expect(section.titledHeadingTerms?.has('setup')).toBe(true);
  });
});

describe('heading weights', () => {
  it('follow the term statistics: kept for the same index, computed again when a re-ingest brings new statistics', () => {
    const section = analysisOf(chunk('e', 'Body text.'));
    const before = { df: 'old index' };
    const after = { df: 'new index' };
    const first = section.headingWeights(before, () => 2);
    expect(first?.own.mass).toBe(2 * (first?.own.terms.length ?? 0));
    expect(section.headingWeights(before, () => 5)).toBe(first);
    const second = section.headingWeights(after, () => 5);
    expect(second?.own.mass).toBe(5 * (second?.own.terms.length ?? 0));
  });
});

describe('analysis of a passage that is not an indexed section', () => {
  it('is never served from the cache, so two selections under one id get their own words', () => {
    const selection = (text: string) => ({ ...chunk('selection', text), hash: '' });
    expect(analysisOf(selection('Selectors memoize derived data.')).words.has('selector')).toBe(true);
    const next = analysisOf(selection('Listeners react to actions.')).words;
    expect(next.has('selector')).toBe(false);
    expect(next.has('listen')).toBe(true);
  });
});
