/** @jest-environment node */
import { describe, expect, it } from '@jest/globals';
import { parseSearchIndex, parseSearchManifest, SearchIndexError } from './index-format.js';

const page = ['/docs/intro', 'Introduction'];
const section = [0, '', [], 1, 'Text'];

describe('reading the static index and its manifest', () => {
  it('accepts a well-formed index and manifest', () => {
    expect(parseSearchIndex({ format: 'docs-chat-search-index', version: 1, pages: [page], sections: [section] }).sections).toHaveLength(1);
    expect(
      parseSearchManifest({
        format: 'docs-chat-search-manifest',
        version: 1,
        index: 'search-index.0a1b2c3d4e5f.json',
        pages: 1,
        sections: 1,
      }).index,
    ).toBe('search-index.0a1b2c3d4e5f.json');
  });

  it.each<[string, unknown]>([
    ['something that is not an index', { hello: 'world' }],
    ['an index of another version', { format: 'docs-chat-search-index', version: 2, pages: [], sections: [] }],
    ['an index without sections', { format: 'docs-chat-search-index', version: 1, pages: [] }],
    [
      'a section pointing at a page that does not exist',
      { format: 'docs-chat-search-index', version: 1, pages: [page], sections: [[3, '', [], 1, 'x']] },
    ],
    [
      'a section with a heading that is not text',
      { format: 'docs-chat-search-index', version: 1, pages: [page], sections: [[0, '', [7], 1, 'x']] },
    ],
    ['a page without a title', { format: 'docs-chat-search-index', version: 1, pages: [['/docs/intro']], sections: [] }],
    ['null', null],
  ])('refuses %s with a SearchIndexError', (_case, value) => {
    expect(() => parseSearchIndex(value)).toThrow(SearchIndexError);
  });

  it.each<[string, unknown]>([
    ['a manifest naming a path outside its folder', { format: 'docs-chat-search-manifest', version: 1, index: '../../secrets.json' }],
    ['a manifest naming another site', { format: 'docs-chat-search-manifest', version: 1, index: 'https://example.com/index.json' }],
    ['a manifest of another version', { format: 'docs-chat-search-manifest', version: 9, index: 'search-index.json' }],
  ])('refuses %s', (_case, value) => {
    expect(() => parseSearchManifest(value)).toThrow(SearchIndexError);
  });
});
