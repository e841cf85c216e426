import { describe, expect, it } from '@jest/globals';
import type { SourceRef } from '@docs-chat/protocol';
import { citationNumbers, numberSources } from './cited-sources.js';

const source = (name: string): SourceRef => ({
  file: `${name}.md`,
  title: name,
  heading: null,
  heading_path: [name],
  url: `/docs/${name}`,
  score: 0.5,
});
const [one, two, three] = [source('one'), source('two'), source('three')];

describe('which source each citation of an answer points to', () => {
  it('reads citations in order of first appearance, in lists, quotes and tables too, never in code', () => {
    const answer =
      'Do this [3].\n\n- then [1][3]\n\n> and [2, 4]\n\n| a |\n| --- |\n| [5] |\n\n```js\nlist[6]\n```\n\nKeep `items[7]` and \\[8].';
    expect(citationNumbers(answer)).toEqual([3, 1, 2, 4, 5]);
  });

  it('numbers the sources of a streaming answer from 1, as the sources event lists them', () => {
    expect(numberSources('Partly written [2', [one, two, three], false).map((entry) => entry.number)).toEqual([1, 2, 3]);
  });

  it('pairs the cited sources of a finished answer with its citations: [2] before [3] and no [1]', () => {
    const numbered = numberSources('Install it [2]. Then configure it [3]. Again [2].', [two, three], true);
    expect(numbered).toEqual([
      { number: 2, source: two },
      { number: 3, source: three },
    ]);
  });

  it('numbers from 1 when the answer cites none of the sources the server sent (it then sends them all)', () => {
    expect(numberSources('No citation at all.', [one, two], true).map((entry) => entry.number)).toEqual([1, 2]);
  });
});
