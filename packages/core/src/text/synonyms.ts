/**
 * A small, general thesaurus of software documentation: words and phrases a
 * reader uses for what the docs say in other words ("turn off" / "disable",
 * "config" / "configuration", "repo" / "repository", "spec" / "test"). The
 * offline retrieval is lexical, so without it a question in the reader's words
 * misses the section written in the author's. The groups are interchangeable
 * terms of technical writing, not learned from or fitted to any corpus (the
 * learned, corpus-specific expansion is term-associations.ts). A group fires
 * when the question holds one of its words (compared stemmed) or phrases; the
 * group's other single words are then added to the query below the question's
 * own words (see SYNONYM_WEIGHT in retriever.ts). Phrases are only matched,
 * never added: "turn off" is mostly stop words to BM25.
 */
import { stemmer } from 'stemmer';
import { analyzeTerms } from './text-analysis.js';

const GROUPS: string[][] = [
  ['disable', 'turn off', 'switch off', 'deactivate'],
  ['enable', 'turn on', 'switch on', 'activate'],
  ['set up', 'setup', 'install', 'get started'],
  ['config', 'configuration', 'configure'],
  ['remove', 'delete', 'get rid of'],
  ['forbid', 'disallow', 'ban', 'prohibit'],
  ['fast', 'faster', 'speed', 'performance', 'quick'],
  ['slow', 'slower', 'performance', 'speed'],
  ['error', 'exception'],
  ['crash', 'error'],
  ['bug', 'issue', 'problem'],
  ['docs', 'documentation'],
  ['repo', 'repository'],
  ['app', 'application'],
  ['func', 'function'],
  ['arg', 'argument'],
  ['param', 'parameter'],
  ['var', 'variable'],
  ['dir', 'directory', 'folder'],
  ['env', 'environment'],
  ['deps', 'dependencies', 'dependency'],
  ['pkg', 'package'],
  ['lib', 'library'],
  ['auth', 'authentication', 'login', 'log in', 'sign in'],
  ['async', 'asynchronous'],
  ['sync', 'synchronous'],
  ['prod', 'production'],
  ['dev', 'development'],
  ['memory', 'ram'],
  ['upgrade', 'migrate', 'migration'],
  ['spec', 'test'],
  ['example', 'sample'],
  ['old', 'legacy', 'deprecated'],
  ['undo', 'revert'],
  ['stale', 'outdated', 'out of date'],
  ['typo', 'misspelling'],
  ['ts', 'typescript'],
  ['js', 'javascript'],
  ['perf', 'performance'],
  ['cli', 'command line'],
  ['permission', 'authorization'],
];

interface SynonymGroup {
  /** Phrases of several words, as stemmed word sequences with their stop words ("turned off" -> turn, off). */
  phrases: string[][];
  /** Single words, stemmed as the index stems them. */
  words: string[];
}

/** Every word of a text, lower-cased and stemmed, stop words included: what a phrase is matched against. */
function phraseWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((word) => stemmer(word));
}

const COMPILED: SynonymGroup[] = GROUPS.map((group) => ({
  phrases: group.filter((entry) => entry.includes(' ')).map(phraseWords),
  words: group.filter((entry) => !entry.includes(' ')).flatMap((entry) => analyzeTerms(entry)),
}));

function containsPhrase(words: string[], phrase: string[]): boolean {
  for (let start = 0; start + phrase.length <= words.length; start += 1) {
    if (phrase.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** Stemmed words the question's words and phrases are synonyms of, each with `weight`; the question's own words are left out. */
export function synonymExpansions(query: string, weight: number): Map<string, number> {
  const present = new Set(analyzeTerms(query));
  const words = phraseWords(query);
  const extra = new Map<string, number>();
  for (const group of COMPILED) {
    if (!group.words.some((word) => present.has(word)) && !group.phrases.some((phrase) => containsPhrase(words, phrase))) continue;
    for (const word of group.words) if (!present.has(word)) extra.set(word, weight);
  }
  return extra;
}
