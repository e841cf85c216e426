import { encodeDocumentSparse, encodePageSparse, encodeQuerySparse } from './sparse-encoder.js';
import { hashTerm } from './text-analysis.js';

function valueOf(vector: { indices: number[]; values: number[] }, term: string | number): number | undefined {
  const position = vector.indices.indexOf(typeof term === 'number' ? term : hashTerm(term));
  return position === -1 ? undefined : vector.values[position];
}

describe('sparse encoder', () => {
  it('produces unique ascending indices as Qdrant requires', () => {
    const vector = encodeDocumentSparse({ headingPath: ['Store', 'Dispatch'], text: 'dispatch dispatch dispatch an action to the store' });
    expect([...vector.indices].sort((a, b) => a - b)).toEqual(vector.indices);
    expect(new Set(vector.indices).size).toBe(vector.indices.length);
    expect(vector.values).toHaveLength(vector.indices.length);
  });

  it('saturates repeated terms: ten mentions weigh less than ten times one', () => {
    const once = valueOf(encodeDocumentSparse({ headingPath: ['T'], text: 'middleware logs' }), 'middlewar') as number;
    const often = valueOf(encodeDocumentSparse({ headingPath: ['T'], text: 'middleware '.repeat(10) + 'logs' }), 'middlewar') as number;
    expect(often).toBeGreaterThan(once);
    expect(often).toBeLessThan(once * 3);
  });

  it('gives a term of the section heading more weight than the same term in the body', () => {
    const inHeading = valueOf(
      encodeDocumentSparse({ headingPath: ['Guide', 'Selectors'], text: 'other words here' }),
      'selector',
    ) as number;
    const inBody = valueOf(
      encodeDocumentSparse({ headingPath: ['Guide', 'Other'], text: 'selectors other words here' }),
      'selector',
    ) as number;
    expect(inHeading).toBeGreaterThan(inBody);
  });

  it('indexes adjacent word pairs so a question repeating a phrase of the docs outscores one that only shares its words', () => {
    const doc = encodeDocumentSparse({ headingPath: ['Guide', 'Forms'], text: 'Keep form state in components, not in the store.' });
    const score = (question: string) => {
      const query = encodeQuerySparse(question);
      return query.indices.reduce((sum, index, i) => sum + (query.values[i] as number) * (valueOf(doc, index) ?? 0), 0);
    };
    expect(score('where does form state go')).toBeGreaterThan(score('where does state of a form go'));
  });

  it('gives a whole page one vector whose length normalisation favours the page that is about the words', () => {
    const focused = encodePageSparse({ title: 'Selectors', texts: ['Selectors read state.', 'Memoized selectors avoid renders.'] });
    const passing = encodePageSparse({
      title: 'Reducers',
      texts: ['Reducers update state. '.repeat(40), 'Selectors are covered elsewhere.'],
    });
    expect(valueOf(focused, 'selector') as number).toBeGreaterThan(valueOf(passing, 'selector') as number);
  });

  it('encodes a question as one unit per distinct term', () => {
    const query = encodeQuerySparse('store the store in a store');
    expect(query.values).toEqual([1]);
    expect(query.indices).toEqual([hashTerm('store')]);
  });
});
