/** @jest-environment node */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseSearchIndex } from './index-format.js';
import { createSearchEngine, type StaticSearchHit } from './search-engine.js';
import { highlightedPieces } from './snippet.js';

const index = parseSearchIndex(JSON.parse(readFileSync(new URL('./__fixtures__/lighthouse-index.json', import.meta.url), 'utf8')));
const engine = createSearchEngine(index);

function urls(hits: StaticSearchHit[]): string[] {
  return hits.map((hit) => hit.url);
}

function marked(hit: StaticSearchHit): string[] {
  return highlightedPieces(hit.snippet)
    .filter((piece) => piece.marked)
    .map((piece) => piece.text);
}

describe('the in-browser search engine', () => {
  it('ranks first the section whose heading names the words asked for, and links to its anchor', () => {
    const { hits } = engine.search('how do I trim the wick?');
    expect(hits[0]).toMatchObject({
      url: '/handbook/docs/guides/lamp#trimming-the-wick',
      pageUrl: '/handbook/docs/guides/lamp',
      title: 'Keeping the lamp lit',
      headings: ['Trimming the wick'],
      depth: 2,
    });
  });

  it('ranks the section that names the rare subject of a question above one that holds only its common words', () => {
    // Ten of twenty sections use the words model, machine and running, another section holds all of
    // the question's common words, and one names Ollama: the common words must not outvote the one
    // word that says what the question is about.
    const other = Array.from({ length: 20 }, (_, n): [number, string, string[], number, string] => [
      1,
      `topic-${n}`,
      [`Topic ${n}`],
      2,
      n % 2 === 0
        ? `Part ${n}: use the lamp model and the fog machine, and keep them running${n % 6 === 0 ? ' instead of the old ones' : ''}.`
        : `Part ${n}: the keeper writes the log.`,
    ]);
    const site = createSearchEngine(
      parseSearchIndex({
        format: 'docs-chat-search-index',
        version: 1,
        pages: [
          ['/docs/models', 'Language models'],
          ['/docs/other', 'Other topics'],
          ['/docs/benchmarks', 'Benchmarks'],
        ],
        sections: [
          [0, 'local-models', ['Local models'], 2, 'Point the server at Ollama with OPENAI_BASE_URL.'],
          ...other,
          [2, 'memory', ['Memory'], 2, 'Use this machine to measure the model running at full load, instead of an idle machine.'],
          [2, 'latency', ['Latency'], 2, 'First token while running on a slower machine.'],
          [2, 'cpu', ['CPU'], 2, 'CPU time of the model per answer.'],
        ],
      }),
    );
    const { hits } = site.search('Can I use a model running in Ollama on my machine instead?');
    expect(hits[0]?.url).toBe('/docs/models#local-models');
  });

  it('links a page introduction without an anchor', () => {
    const { hits } = engine.search('paraffin');
    expect(hits[0]?.url).toBe('/handbook/docs/guides/lamp');
    expect(hits[0]?.depth).toBe(1);
  });

  it('matches the word being typed as the beginning of longer words', () => {
    expect(urls(engine.search('compres').hits)).toContain('/handbook/docs/guides/fog-signal#starting-the-compressor');
    // Once the word is finished (a space or a question mark after it), it must match as written.
    expect(engine.search('compres ').hits).toEqual([]);
  });

  it('finds a section despite a typo of one letter', () => {
    expect(urls(engine.search('compresor').hits)[0]).toBe('/handbook/docs/guides/fog-signal#starting-the-compressor');
    expect(urls(engine.search('fresnell lens').hits)[0]).toBe('/handbook/docs/guides/lamp#cleaning-the-lens');
  });

  it('matches code names by their parts, and the parts by the whole name', () => {
    expect(urls(engine.search('lampSchedule').hits)[0]).toBe('/handbook/docs/reference/configuration#lampschedule');
    expect(urls(engine.search('signal interval').hits)).toContain('/handbook/docs/reference/configuration#signalinterval');
  });

  it('lists a section split in parts once, with the part that matched best', () => {
    const { hits } = engine.search('lens');
    expect(urls(hits).filter((url) => url.endsWith('#cleaning-the-lens'))).toHaveLength(1);
    const winter = engine.search('lens fogs in winter').hits[0];
    expect(winter?.snippet.text).toMatch(/winter/);
  });

  it('marks the matched words in the snippet, the title and the headings', () => {
    const hit = engine.search('polish the lens').hits[0] as StaticSearchHit;
    expect(marked(hit)).toEqual(expect.arrayContaining(['Polish', 'lens']));
    expect(highlightedPieces(hit.highlightedHeadings[0] as StaticSearchHit['snippet'])).toEqual([
      { text: 'Cleaning the ', marked: false },
      { text: 'lens', marked: true },
    ]);
  });

  it('finds Chinese text written without spaces, and Cyrillic words', () => {
    expect(urls(engine.search('雾号').hits)[0]).toBe('/handbook/docs/i18n/notes#chinese');
    expect(urls(engine.search('маяк').hits)[0]).toBe('/handbook/docs/i18n/notes#russian');
  });

  it('answers a query of only stop words, or of punctuation, with no results instead of every section', () => {
    expect(engine.search('how do I do it?').hits).toEqual([]);
    expect(engine.search('?!').hits).toEqual([]);
    expect(engine.search('').hits).toEqual([]);
  });

  it('reads a 4,000-character query without failing, using its first 512 characters', () => {
    const query = `paraffin ${'sunset '.repeat(100)}${'compressor '.repeat(300)}`;
    expect(query.length).toBeGreaterThan(4000);
    const { hits } = engine.search(query);
    expect(hits[0]?.url).toBe('/handbook/docs/guides/lamp');
    expect(urls(hits)).not.toContain('/handbook/docs/guides/fog-signal#starting-the-compressor');
  });

  it('takes HTML in a query as plain words', () => {
    expect(urls(engine.search('<img src=x onerror="alert(1)"> lamp').hits)).toEqual(urls(engine.search('lamp').hits));
  });

  it('returns at most the number of results asked for', () => {
    expect(engine.search('the lamp lens fog signal keeper', { limit: 3 }).hits).toHaveLength(3);
  });
});
