import { analyzeTerms } from './text-analysis.js';
import { synonymExpansions } from './synonyms.js';

const stem = (word: string) => analyzeTerms(word)[0] as string;

describe('synonymExpansions', () => {
  it('adds the written form for a phrase a reader uses ("turn off" finds "disable")', () => {
    const extra = synonymExpansions('How do I turn off this rule for one file?', 0.5);
    expect(extra.get(stem('disable'))).toBe(0.5);
    // "turn on" is a different group: the opposite must not come along.
    expect(extra.has(stem('enable'))).toBe(false);
  });

  it('matches words in any inflection and expands abbreviations both ways', () => {
    expect(synonymExpansions('Where do the specs live?', 0.5).has(stem('test'))).toBe(true);
    expect(synonymExpansions('Which configuration file is read?', 0.5).has(stem('config'))).toBe(true);
    expect(synonymExpansions('Clone the repo first', 0.5).has(stem('repository'))).toBe(true);
  });

  it('never re-adds a word the question already holds, and adds nothing for an unrelated question', () => {
    const extra = synonymExpansions('disable or deactivate the plugin', 0.5);
    expect(extra.has(stem('disable'))).toBe(false);
    expect(extra.has(stem('deactivate'))).toBe(false);
    expect(synonymExpansions('What does the reducer return?', 0.5).size).toBe(0);
  });

  it('matches a phrase in any inflection and across line breaks, but not inside other words', () => {
    expect(synonymExpansions('how to set\n  up the project', 0.5).has(stem('install'))).toBe(true);
    expect(synonymExpansions('Can it be turned off?', 0.5).has(stem('disable'))).toBe(true);
    expect(synonymExpansions('Switching on the flag', 0.5).has(stem('enable'))).toBe(true);
    expect(synonymExpansions('the offset update', 0.5).has(stem('install'))).toBe(false);
  });
});
