/**
 * A small, general thesaurus of software documentation: words and phrases a
 * reader uses for what the docs say in other words ("turn off" / "disable",
 * "config" / "configuration", "repo" / "repository"). The offline retrieval
 * is lexical, so without it a question in the reader's words misses the
 * section written in the author's. The groups are interchangeable
 * terms of technical writing, not learned from or fitted to any corpus (the
 * learned, corpus-specific expansion is term-associations.ts). A group fires
 * when the question holds one of its words (compared stemmed) or phrases; the
 * group's other single words are then added to the query below the question's
 * own words (ranking.synonymWeight of the retrieval profile). Phrases are
 * only matched, never added: "turn off" is mostly stop words to BM25.
 *
 * A group belongs here only if it is a general synonymy of technical writing:
 * never a pair that joins one question's words to one section's heading (the
 * audit of these lists in docs-site/docs/quality/evaluation.md removed
 * "crash"/"error", "spec"/"test" and "quickstart" in the set-up group on that
 * ground). House or product terms go in the admin's synonyms file.
 *
 * Admins add their own groups (product names, house jargon) in a synonyms file
 * (`SEARCH_SYNONYMS_FILE`, see parseSynonymsFile); they extend the built-in ones.
 */
import { stemmer } from 'stemmer';
import { DocsChatError } from '../errors.js';
import { analyzeTerms } from './text-analysis.js';

export const BUILT_IN_SYNONYMS: readonly (readonly string[])[] = [
  ['disable', 'turn off', 'switch off', 'deactivate'],
  ['enable', 'turn on', 'switch on', 'activate'],
  ['set up', 'setup', 'install', 'get started'],
  ['config', 'configuration', 'configure'],
  ['remove', 'delete', 'get rid of'],
  ['forbid', 'disallow', 'ban', 'prohibit'],
  ['fast', 'faster', 'speed', 'performance', 'quick'],
  ['slow', 'slower', 'performance', 'speed'],
  ['error', 'exception'],
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
  // Abbreviations of technical writing.
  ['k8s', 'kubernetes'],
  ['db', 'database'],
  ['i18n', 'internationalization', 'internationalisation', 'translation'],
  ['l10n', 'localization', 'localisation'],
  ['a11y', 'accessibility'],
  ['msg', 'message'],
  ['img', 'image'],
  ['nav', 'navigation', 'navbar'],
  ['info', 'information'],
  ['impl', 'implementation'],
  ['init', 'initialize', 'initialise', 'initialization', 'initialisation'],
  ['max', 'maximum'],
  ['min', 'minimum'],
  ['ref', 'reference'],
  ['req', 'request'],
  ['res', 'response'],
  ['tmp', 'temp', 'temporary'],
  ['ui', 'user interface'],
  ['prefs', 'preferences'],
  ['ci', 'continuous integration'],
  // British and American spellings the stemmer keeps apart.
  ['optimize', 'optimise', 'optimization', 'optimisation'],
  ['customize', 'customise', 'customization', 'customisation'],
  ['normalize', 'normalise', 'normalization', 'normalisation'],
  ['serialize', 'serialise', 'serialization', 'serialisation'],
  ['memoize', 'memoise', 'memoization', 'memoisation'],
  ['analyze', 'analyse'],
  ['behavior', 'behaviour'],
  ['color', 'colour'],
  ['license', 'licence'],
  ['canceled', 'cancelled'],
  ['favorite', 'favourite'],
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

function compile(group: readonly string[]): SynonymGroup {
  return {
    phrases: group.filter((entry) => entry.includes(' ')).map(phraseWords),
    words: group.filter((entry) => !entry.includes(' ')).flatMap((entry) => analyzeTerms(entry)),
  };
}

function containsPhrase(words: string[], phrase: string[]): boolean {
  for (let start = 0; start + phrase.length <= words.length; start += 1) {
    if (phrase.every((word, offset) => words[start + offset] === word)) return true;
  }
  return false;
}

/** Groups of interchangeable terms, queried by the retriever for each question. */
export interface Thesaurus {
  /** How many groups it holds (built-in and the admin's). */
  readonly groups: number;
  /** Stemmed words the question's words and phrases are synonyms of, each with `weight`; the question's own words are left out. */
  expansions(query: string, weight: number): Map<string, number>;
  /** The single-word synonyms of one stemmed word ("repo" -> "repositori"), without the word itself. */
  synonymsOf: (word: string) => readonly string[];
}

/** The built-in groups plus `extra` ones (from the admin's synonyms file). */
export function createThesaurus(extra: readonly (readonly string[])[] = []): Thesaurus {
  const compiled = [...BUILT_IN_SYNONYMS, ...extra].map(compile);
  // Word -> the other single words of every group that holds it: a group fires on any of its words,
  // so this map alone answers the word side of `expansions` and the whole of `synonymsOf`.
  const collected = new Map<string, Set<string>>();
  for (const group of compiled) {
    for (const word of group.words) {
      let others = collected.get(word);
      if (!others) collected.set(word, (others = new Set()));
      for (const other of group.words) if (other !== word) others.add(other);
    }
  }
  const byWord = new Map([...collected].map(([word, others]) => [word, [...others]]));
  const withPhrases = compiled.filter((group) => group.phrases.length > 0);
  return {
    groups: compiled.length,
    synonymsOf: (word) => byWord.get(word) ?? [],
    expansions(query, weight) {
      const present = new Set(analyzeTerms(query));
      const found: string[] = [];
      for (const word of present) found.push(...(byWord.get(word) ?? []));
      const words = phraseWords(query);
      for (const group of withPhrases) if (group.phrases.some((phrase) => containsPhrase(words, phrase))) found.push(...group.words);
      const extraWords = new Map<string, number>();
      for (const word of found) if (!present.has(word)) extraWords.set(word, weight);
      return extraWords;
    },
  };
}

/**
 * Reads a synonyms file: one group of interchangeable terms per line, separated
 * by commas (`k8s, kubernetes`, `sign in, log in, login`), as in the synonym
 * files of Solr and Elasticsearch. Blank lines and lines starting with `#` are
 * skipped. A line with fewer than two terms, or a term that is nothing but
 * common words ("the", "of"), is an error that names the line; so is a group
 * of phrases only, since a group adds its single words to a search.
 */
export function parseSynonymsFile(text: string, fileName: string): string[][] {
  const groups: string[][] = [];
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${fileName}, line ${index + 1}`;
    if (line.includes('=>')) {
      throw new DocsChatError('config_invalid', `${where}: one-way rules ("a => b") are not supported.`, {
        hint: 'Write the terms as one group of equivalents separated by commas: "a, b".',
      });
    }
    const terms = [
      ...new Set(
        line
          .split(',')
          .map((term) => term.trim().toLowerCase().replace(/\s+/g, ' '))
          .filter((term) => term !== ''),
      ),
    ];
    if (terms.length < 2) {
      throw new DocsChatError('config_invalid', `${where}: "${line}" holds ${terms.length} term; a group needs at least two.`, {
        hint: 'Separate the terms that mean the same with commas, for example "k8s, kubernetes".',
      });
    }
    for (const term of terms) {
      if (analyzeTerms(term).length === 0) {
        throw new DocsChatError('config_invalid', `${where}: "${term}" is only common words, which search ignores.`, {
          hint: 'Use a term with at least one word that carries meaning, or remove it from the group.',
        });
      }
    }
    if (terms.every((term) => term.includes(' '))) {
      throw new DocsChatError('config_invalid', `${where}: every term of "${line}" is a phrase; search can only add single words.`, {
        hint: 'Add the single word the phrases stand for, for example "sign in, log in, login".',
      });
    }
    groups.push(terms);
  });
  return groups;
}
