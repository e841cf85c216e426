import type { SourceRef } from '@docs-chat/core/protocol';
import { citedNumbers, sourcesUsedByAnswer } from './cited-sources.js';

function source(file: string): SourceRef {
  return { file, title: file, heading: null, heading_path: [file], url: `/docs/${file}`, score: 0.5 };
}

describe('the sources an answer used', () => {
  const numbered = [1, 2, 3].map((number) => ({ number, source: source(`doc-${number}.md`) }));

  it('reads [n], [n][m] and [n, m] citations in order of first appearance', () => {
    expect(citedNumbers('See [3]. Also [1][3] and [2, 1].')).toEqual([3, 1, 2]);
  });

  it('does not read brackets inside code, escaped brackets or link texts as citations, as the widget does not', () => {
    const answer = 'Use `items[3]` here [2].\n\n```js\nconst first = list[1];\n```\n\nA literal \\[3] and [1](https://example.com).';
    expect(citedNumbers(answer)).toEqual([2]);
  });

  it('keeps only the cited sources when the answer cites', () => {
    expect(sourcesUsedByAnswer('Use the option [2].', numbered).map((entry) => entry.file)).toEqual(['doc-2.md']);
  });

  it('keeps every retrieved source when the answer cites nothing usable', () => {
    expect(sourcesUsedByAnswer('No citations here.', numbered)).toHaveLength(3);
    expect(sourcesUsedByAnswer('A made-up citation [9].', numbered)).toHaveLength(3);
  });
});
