import { analyzeTerms } from './text-analysis.js';
import { createThesaurus, parseSynonymsFile } from './synonyms.js';

const stem = (word: string) => analyzeTerms(word)[0] as string;
const builtIn = createThesaurus();
const synonymExpansions = (query: string, weight: number) => builtIn.expansions(query, weight);

describe('synonymExpansions', () => {
  it('adds the written form for a phrase a reader uses ("turn off" finds "disable")', () => {
    const extra = synonymExpansions('How do I turn off this rule for one file?', 0.5);
    expect(extra.get(stem('disable'))).toBe(0.5);
    // "turn on" is a different group: the opposite must not come along.
    expect(extra.has(stem('enable'))).toBe(false);
  });

  it('matches words in any inflection and expands abbreviations both ways', () => {
    expect(synonymExpansions('Which env variables are read?', 0.5).has(stem('environment'))).toBe(true);
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

describe('synonym files and thesauri', () => {
  it('reads one comma-separated group per line, skipping blank lines and comments', () => {
    const text = '# house jargon\n\nK8s, Kubernetes\r\nsign in,  log in , login\n';
    expect(parseSynonymsFile(text, 'synonyms.txt')).toEqual([
      ['k8s', 'kubernetes'],
      ['sign in', 'log in', 'login'],
    ]);
  });

  it.each([
    ['klaxon', 'line 2: "klaxon" holds 1 term; a group needs at least two'],
    ['horn, the', 'line 2: "the" is only common words'],
    ['log in, sign in', 'line 2: every term of "log in, sign in" is a phrase'],
    ['k8s => kubernetes', 'line 2: one-way rules ("a => b") are not supported'],
  ])('rejects %j with an error that names the file and line', (line, message) => {
    let thrown: unknown;
    try {
      parseSynonymsFile(`# first line\n${line}\n`, 'synonyms.txt');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'config_invalid', message: expect.stringContaining(`synonyms.txt, ${message}`) });
    expect((thrown as { hint?: string }).hint).toBeTruthy();
  });

  it("adds the admin's groups to the built-in ones, both ways", () => {
    const thesaurus = createThesaurus([['klaxon', 'foghorn']]);
    expect(thesaurus.groups).toBe(createThesaurus().groups + 1);
    expect(thesaurus.expansions('when does the klaxon sound', 0.5).has(stem('foghorn'))).toBe(true);
    expect(thesaurus.expansions('Foghorns in the harbour', 0.5).has(stem('klaxon'))).toBe(true);
    expect(thesaurus.synonymsOf(stem('klaxon'))).toEqual([stem('foghorn')]);
    // The built-in groups still apply.
    expect(thesaurus.expansions('turn off the lamp', 0.5).has(stem('disable'))).toBe(true);
    expect(createThesaurus().expansions('when does the klaxon sound', 0.5).size).toBe(0);
  });

  it('ships abbreviations and British spellings the stemmer keeps apart', () => {
    expect(synonymExpansions('Set up k8s', 0.5).has(stem('kubernetes'))).toBe(true);
    expect(synonymExpansions('i18n of the sidebar', 0.5).has(stem('internationalization'))).toBe(true);
    const british = synonymExpansions('How do I customise the colours?', 0.5);
    expect(british.has(stem('customize'))).toBe(true);
    expect(british.has(stem('color'))).toBe(true);
  });
});
