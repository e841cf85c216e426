import { PROFILE_RANGES, PROFILE_SOURCES, profileHashes, profileSourcesFor, retrievalProfileFor } from './retrieval-profile.js';

const words = { analyzer: 'a', search: 's' };

describe('retrieval profile', () => {
  it('gives every value of every embedder a one-line source and a range that holds it', () => {
    for (const embedder of ['local', 'neural', 'gemini', 'openai']) {
      const profile = retrievalProfileFor(embedder);
      const sources = profileSourcesFor(embedder);
      for (const section of Object.keys(PROFILE_SOURCES) as (keyof typeof PROFILE_SOURCES)[]) {
        for (const [name, value] of Object.entries(profile[section])) {
          const source = (sources[section] as Record<string, string>)[name];
          expect({
            value: `${section}.${name}`,
            source: typeof source === 'string' && source.length > 10 && !source.includes('\n'),
          }).toEqual({ value: `${section}.${name}`, source: true });
          const [min, max] = (PROFILE_RANGES[section] as Record<string, readonly [number, number]>)[name]!;
          expect(value).toBeGreaterThanOrEqual(min);
          expect(value).toBeLessThanOrEqual(max);
        }
      }
    }
  });

  it('changes only the search hash when a ranking weight changes, so nothing is re-embedded or re-chunked', () => {
    const before = profileHashes(retrievalProfileFor('neural'), words);
    const after = profileHashes(retrievalProfileFor('neural', { 'ranking.pageWeight': 0.25 }), words);
    expect(after).toMatchObject({ chunking: before.chunking, sparse: before.sparse, dense: before.dense });
    expect(after.search).not.toBe(before.search);
    expect(after.profile).not.toBe(before.profile);
  });

  it('changes the chunking hash alone when the chunk size changes, and the sparse hash alone when the stop words do', () => {
    const base = retrievalProfileFor('local');
    const before = profileHashes(base, words);
    const rechunked = profileHashes({ ...base, chunking: { ...base.chunking, maxTokens: 384 } }, words);
    expect(rechunked).toMatchObject({ sparse: before.sparse, dense: before.dense, search: before.search });
    expect(rechunked.chunking).not.toBe(before.chunking);
    const reworded = profileHashes(base, { ...words, analyzer: 'other stop words' });
    expect(reworded).toMatchObject({ chunking: before.chunking, dense: before.dense });
    expect(reworded.sparse).not.toBe(before.sparse);
  });

  it('keeps per-embedder values apart: the neural embedder reads the first words of a chunk, the hashing one all of it', () => {
    expect(retrievalProfileFor('neural').dense.leadWords).toBeGreaterThan(0);
    expect(retrievalProfileFor('local').dense.leadWords).toBe(0);
    expect(profileHashes(retrievalProfileFor('neural'), words).dense).not.toBe(profileHashes(retrievalProfileFor('local'), words).dense);
  });
});
