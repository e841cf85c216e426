import { createLocalEmbedder } from './local-embedder.js';

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

describe('local embedder', () => {
  const embedder = createLocalEmbedder();

  it('returns unit-length vectors of its declared dimension', async () => {
    const [vector] = await embedder.embed({ texts: ['Configure the store with middleware'], task: 'document' });
    expect(vector).toHaveLength(embedder.dimensions);
    expect(cosine(vector as Float32Array, vector as Float32Array)).toBeCloseTo(1, 5);
  });

  it('is deterministic across calls and instances', async () => {
    const [first] = await embedder.embed({ texts: ['Selectors derive data'], task: 'query' });
    const [second] = await createLocalEmbedder().embed({ texts: ['Selectors derive data'], task: 'document' });
    expect(Array.from(first as Float32Array)).toEqual(Array.from(second as Float32Array));
  });

  it('puts a question closer to the passage that answers it than to an unrelated one', async () => {
    const [question, answer, unrelated] = await embedder.embed({
      texts: [
        'Can I put non-serializable values like promises in the state?',
        'Do not put non-serializable values such as Promises, Symbols or class instances in state or actions.',
        'Tabs let readers switch between npm and yarn commands.',
      ],
      task: 'document',
    });
    expect(cosine(question as Float32Array, answer as Float32Array)).toBeGreaterThan(
      cosine(question as Float32Array, unrelated as Float32Array) + 0.1,
    );
  });

  it('matches inflected and compound forms through character n-grams', async () => {
    const [query, compound, other] = await embedder.embed({
      texts: ['serializable', 'nonserializable data', 'asynchronous logic'],
      task: 'query',
    });
    expect(cosine(query as Float32Array, compound as Float32Array)).toBeGreaterThan(cosine(query as Float32Array, other as Float32Array));
  });

  it('returns a finite vector even for text made only of stop words', async () => {
    const [vector] = await embedder.embed({ texts: ['the and of'], task: 'query' });
    expect(Array.from(vector as Float32Array).every((value) => Number.isFinite(value))).toBe(true);
  });
});
