import type { Chunk } from '../core-api.js';
import { toSourceRef } from './chat-service.js';

function chunk(overrides: Partial<Chunk>): Chunk {
  return {
    id: '00000000-0000-5000-8000-000000000000',
    file: 'intro.md',
    docId: 'intro',
    title: 'Intro',
    heading: null,
    headingPath: ['Intro'],
    depth: 1,
    anchor: null,
    url: '/docs/intro',
    pageUrl: '/docs/intro',
    part: 0,
    text: 'Body.',
    indexText: 'Intro\n\nBody.',
    tokens: 3,
    hash: 'h',
    fileHash: 'f',
    order: 0,
    ...overrides,
  };
}

describe('toSourceRef', () => {
  it('cites a page by its URL and a JSON record without a URL by its id', () => {
    expect(toSourceRef({ number: 1, chunk: chunk({}), score: 0.5 })).not.toHaveProperty('id');
    const record = toSourceRef({
      number: 1,
      chunk: chunk({ file: 'records:rules/no-eval', docId: 'no-eval', title: 'No eval', url: '', pageUrl: '', source: 'records:rules' }),
      score: 0.5,
    });
    expect(record).toMatchObject({ title: 'No eval', url: '', id: 'no-eval' });
  });
});
