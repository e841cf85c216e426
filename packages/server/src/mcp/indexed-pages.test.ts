import { chunkDocument, parseDocument } from '@docs-chat/core';
import { PageReferenceError, parsePageReference, renderPageMarkdown, withoutRepeatedStart } from './indexed-pages.js';

/** A page whose second section is far too long for one chunk: the chunker splits it with overlap. */
function longPage(): string {
  const sentences = Array.from(
    { length: 80 },
    (_, index) => `Tide table entry ${index} lists the water level at hour ${index % 24} in metres.`,
  );
  return [
    '---',
    'title: Tide tables',
    '---',
    '',
    'Tables of the tides.',
    '',
    '## Reading a table',
    '',
    sentences.join(' '),
    '',
    '### Units {#units}',
    '',
    'Levels are in metres.',
    '',
  ].join('\n');
}

describe('renderPageMarkdown', () => {
  it('rebuilds a page from its chunks with each heading and anchor once and no text repeated by the overlap', () => {
    const doc = parseDocument({ file: 'tides.md', text: longPage() });
    const chunks = chunkDocument(doc, { fileHash: 'hash', maxTokens: 120, overlapRatio: 0.2 });
    const parts = chunks.filter((chunk) => chunk.anchor === 'reading-a-table');
    expect(parts.length).toBeGreaterThan(2);
    const markdown = renderPageMarkdown(
      { file: 'tides.md', title: 'Tide tables', url: '/docs/tides' },
      chunks,
      (url) => `https://example.org${url}`,
    );
    expect(
      markdown.startsWith(
        '# Tide tables\n\nSource: https://example.org/docs/tides\n\nTables of the tides.\n\n## Reading a table {#reading-a-table}\n',
      ),
    ).toBe(true);
    expect(markdown).toContain('\n### Units {#units}\n\nLevels are in metres.\n');
    expect(markdown.match(/## Reading a table/g)).toHaveLength(1);
    for (let entry = 0; entry < 80; entry += 1) {
      expect(markdown.match(new RegExp(`Tide table entry ${entry} lists`, 'g'))).toHaveLength(1);
    }
  });

  it('keeps a part whole when it does not start with the end of the previous one', () => {
    expect(withoutRepeatedStart('The first part ends here.', 'A second part that shares nothing.')).toBe(
      'A second part that shares nothing.',
    );
    expect(withoutRepeatedStart('One. The shared sentence is long enough.', 'The shared sentence is long enough. Then new text.')).toBe(
      'Then new text.',
    );
  });
});

describe('parsePageReference', () => {
  it('reads URLs of the site (base path included), URL paths and file paths, keeping the anchor', () => {
    expect(parsePageReference('https://acme.github.io/handbook/docs/intro#setup', 'https://acme.github.io/handbook')).toEqual({
      key: '/docs/intro',
      anchor: 'setup',
    });
    expect(parsePageReference('/docs/intro?tab=npm', undefined)).toEqual({ key: '/docs/intro', anchor: null });
    expect(parsePageReference('guides/set up.md', undefined)).toEqual({ key: 'guides/set up.md', anchor: null });
  });

  it.each([
    ['../secrets.md'],
    ['guides/../../secrets.md'],
    ['guides\\..\\..\\secrets.md'],
    ['/docs/%2E%2E/%2E%2E/etc/passwd'],
    ['D:/secrets.md'],
    ['\\\\server\\share\\secrets.md'],
    ['ftp://acme.github.io/docs/intro'],
    ['https://acme.github.io.evil.example/handbook/docs/intro'],
  ])('refuses %s', (input) => {
    expect(() => parsePageReference(input, 'https://acme.github.io/handbook')).toThrow(PageReferenceError);
  });

  it('refuses absolute URLs when the site address is unknown, saying to pass the path or set DOCS_SITE_URL', () => {
    expect(() => parsePageReference('https://docs.example.com/docs/intro', undefined)).toThrow(/DOCS_SITE_URL.*\/docs\/intro/);
  });
});
