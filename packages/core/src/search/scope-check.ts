/**
 * "Nothing in the docs answers this": a calibrated decision on what the
 * retrieval signals really are. RRF and re-ranking scores are relative (ranks,
 * or fractions of the best candidate), so the check never thresholds them; it
 * looks at absolute evidence instead:
 * - vocabulary: the IDF-weighted share of the question's words that occur in
 *   the docs at all. A question about an entity the docs never mention (another
 *   library, a city, a product) loses its most informative words here;
 * - coverage: the IDF-weighted share of the question's words found in the best
 *   few sections;
 * - the best dense cosine, the embedder's own notion of similarity;
 * - names: a word the question writes as a name (capitalised inside the
 *   sentence, camelCase or all caps: "Vuex", "Vercel", "sessionStorage", "Jest")
 *   that none of the best sections mentions. Someone naming a thing asks about
 *   that thing, and a name is rare enough that BM25 brings up the sections
 *   holding it whenever the docs have any. In-scope paraphrases do bring words
 *   the best sections lack, but on three question sets (66 in-scope questions)
 *   those were all ordinary words ("quickest", "scaffold", "painfully"), never names.
 */
import type { HybridResult } from '../stores/vector-store.js';
import { analyzeTerms } from '../text/text-analysis.js';
import { wordIdf } from '../text/term-statistics.js';
import type { TermStatistics } from '../text/term-statistics.js';
import { SHARED_PROFILE, type ScopeProfile } from '../profile/retrieval-profile.js';
import { splitQuestion } from './question-parts.js';
import { analysisOf } from './chunk-analysis.js';

/** Thresholds of one index and embedder, fitted at ingest (scope-fit.ts) unless an admin sets them. */
export interface ScopeCalibration {
  /** Below this vocabulary share the question is out of scope, whatever else matches. */
  minVocabulary: number;
  /** Below this sum of coverage by the best sections and best dense cosine, the question is out of scope too. */
  minEvidence: number;
  /** Below this best dense cosine too (0 when the embedder's cosine does not tell off-topic questions apart on this index). */
  minDense: number;
}

/** Counts of the scope profile (retrieval-profile.ts, `scope`). */
export type ScopeLimits = Pick<
  ScopeProfile,
  | 'coverageSections'
  | 'nameContextSections'
  | 'companionMinIdf'
  | 'nameMinCompanions'
  | 'subjectNameSections'
  | 'nameMinShare'
  | 'denseVetoCoverage'
>;
const DEFAULT_LIMITS: ScopeLimits = SHARED_PROFILE.scope;

export interface ScopeSignals {
  vocabulary: number;
  coverage: number;
  dense: number;
  /** Names in the question that none of the best sections mentions. */
  missingNames: string[];
  /**
   * Names the best sections do mention, but never together with any other
   * informative word of the question: the docs name the tool in passing while
   * the question is about something else of it ("a custom Jest snapshot
   * serializer" against docs that only say tests run with Jest).
   */
  lonelyNames: string[];
}

/**
 * Acronyms that are ordinary vocabulary in technical writing, not the name of a
 * product the docs might not cover: "out of RAM", "call the API", "a JSON file"
 * say nothing about which tool a question is about.
 */
export const COMMON_ACRONYMS: ReadonlySet<string> = new Set(
  (
    'RAM CPU CPUS GPU API APIS URL URLS URI HTTP HTTPS JSON YAML TOML XML HTML CSV PDF SQL CLI SDK IDE GUI ' +
    'DNS SSH TLS SSL TCP UDP CORS CSRF JWT UUID ASCII UTF ENV EOF FAQ TODO README PR PRS CI CD ETA'
  ).split(' '),
);

/**
 * Words of the question written as names of things: capitalised after the
 * first word of a sentence or line, or all caps. Identifiers (`getState`,
 * `sessionStorage`), exception names (`TypeError`) and numbers with a unit
 * (`400MB`) are not: a reader quotes them from code, an error or a
 * measurement, and they are evidence to search for, not the name of another
 * product.
 */
function nameLikeWords(query: string): string[] {
  const names: string[] = [];
  for (const sentence of query.split(/[.!?:]\s+|\n+/)) {
    const words = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu) ?? [];
    words.forEach((word, position) => {
      const bare = word.replace(/['’]s$/, '').replace(/[.'’-]+$/, '');
      const capitalisedInside = position > 0 && /^\p{Lu}/u.test(bare);
      const allCaps = bare.length >= 3 && /^[\p{Lu}\p{N}]+$/u.test(bare) && /\p{Lu}/u.test(bare);
      // "I", "I've", "I'm" are capitalised but name nothing.
      if (/^I(['’]|$)/.test(word)) return;
      // Two-letter capitals ("OK", "UI", "JS") are words or too generic to name anything.
      if (bare.length < 3 && /^[\p{Lu}\p{N}]+$/u.test(bare)) return;
      // A number with its unit ("400MB", "2GB", "5XX") is a quantity, not the name of a product.
      if (/^\p{N}/u.test(bare)) return;
      if (COMMON_ACRONYMS.has(bare.replace(/s$/, 'S'))) return;
      // An identifier: a capital after a lower-case letter (`getState`, `TypeError`), or a name ending like an exception.
      if (/\p{Ll}\p{Lu}/u.test(bare) && !/^\p{Lu}[\p{Ll}\p{N}]+$/u.test(bare)) return;
      if (/(Error|Exception|Warning)$/.test(bare)) return;
      if (capitalisedInside || allCaps) names.push(bare);
    });
  }
  return names;
}

export interface ScopeVerdict {
  outOfScope: boolean;
  /** 0..1: 0.5 sits on the decision boundary, 1 is far inside the docs' scope. */
  confidence: number;
  signals: ScopeSignals;
}

/** Single-word synonyms of a stemmed word (thesaurus); a word whose synonym the docs use is not foreign to them. */
export type SynonymLookup = (word: string) => readonly string[];
const noSynonyms: SynonymLookup = () => [];

/**
 * The signals of a question, judged by what it asks: code, stack traces and
 * log lines pasted into it (question-parts.ts) were searched for, but their
 * identifiers are neither unknown words nor names of other products.
 */
export function scopeSignals(
  question: string,
  result: HybridResult,
  stats: TermStatistics | null,
  synonymsOf: SynonymLookup = noSynonyms,
  limits: ScopeLimits = DEFAULT_LIMITS,
): ScopeSignals {
  const parts = splitQuestion(question);
  const query = parts.asked;
  const words = [...new Set(analyzeTerms(query))];
  const dense = result.dense[0]?.score ?? 0;
  if (words.length === 0) return { vocabulary: 0, coverage: 0, dense, missingNames: [], lonelyNames: [] };
  const topWords = new Set<string>();
  for (const point of result.fused.slice(0, limits.coverageSections))
    for (const word of analysisOf(point.payload).words) topWords.add(word);
  // Without statistics every word weighs the same and "known" means "in the best sections".
  const idf = (word: string) => (stats ? wordIdf(stats, word) : 1);
  const knownAlone = (word: string) => (stats ? (stats.df.get(word) ?? 0) > 0 : topWords.has(word));
  // "repo" counts as known to docs that say "repository", and as covered by a section that does.
  const known = (word: string) => knownAlone(word) || synonymsOf(word).some(knownAlone);
  const covered = (word: string) => topWords.has(word) || synonymsOf(word).some((synonym) => topWords.has(synonym));
  let mass = 0;
  let knownMass = 0;
  let coveredMass = 0;
  for (const word of words) {
    const weight = idf(word);
    mass += weight;
    if (known(word)) knownMass += weight;
    if (covered(word)) coveredMass += weight;
  }
  // A name is missing when the best sections never hold its whole form (`sessionStorage`, not `session` + `storage`).
  // The rule rests on a name being rare, so that BM25 brings up the sections holding it. A name the docs hold in many
  // sections is one of their subjects ("... without Immer" on docs that teach Immer): the question may be about
  // something else of it, and the other signals judge it.
  const isSubject = (word: string) => (stats?.df.get(word) ?? 0) >= limits.subjectNameSections;
  // A name is what the question is about only when it holds a fair share of the question's weight. In a long
  // question a name is mostly the reader's setting ("our Netlify build") or a word of pasted output the splitter
  // kept ("Container ... Healthy"), while the rest of the question is squarely in the docs.
  const central = (word: string) => mass > 0 && idf(word) / mass >= limits.nameMinShare;
  // Each name with its analysed whole form, once.
  // A question that is all paste (an error message and nothing else) names no product: its capitals are error codes
  // and identifiers the reader copied, and its words and cosine judge it.
  const namesAsked = (parts.onlyPasted ? [] : nameLikeWords(query)).flatMap((name) => {
    const whole = analyzeTerms(name)[0];
    return whole !== undefined && central(whole) ? [{ name, whole }] : [];
  });
  const missingNames = namesAsked.filter(({ whole }) => !covered(whole) && !isSubject(whole)).map(({ name }) => name);
  const sectionWords = result.fused.slice(0, limits.nameContextSections).map((point) => analysisOf(point.payload).words);
  const lonelyNames = namesAsked
    .filter(({ whole }) => {
      const companions = words.filter((word) => word !== whole && idf(word) > limits.companionMinIdf);
      const withName = sectionWords.filter((section) => section.has(whole));
      return (
        companions.length >= limits.nameMinCompanions &&
        withName.length > 0 &&
        !withName.some((section) => companions.some((word) => section.has(word)))
      );
    })
    .map(({ name }) => name);
  return { vocabulary: mass > 0 ? knownMass / mass : 0, coverage: mass > 0 ? coveredMass / mass : 0, dense, missingNames, lonelyNames };
}

/** Margin of a signal over its threshold, mapped to 0..1 with 0.5 at the threshold. */
function margin(value: number, threshold: number): number {
  if (threshold <= 0) return 1;
  return value >= threshold ? 0.5 + (0.5 * (value - threshold)) / Math.max(1 - threshold, 1e-9) : (0.5 * value) / threshold;
}

export function judgeScope(
  query: string,
  result: HybridResult,
  stats: TermStatistics | null,
  calibration: ScopeCalibration,
  synonymsOf: SynonymLookup = noSynonyms,
  limits: ScopeLimits = DEFAULT_LIMITS,
): ScopeVerdict {
  const signals = scopeSignals(query, result, stats, synonymsOf, limits);
  const vocabularyMargin = margin(signals.vocabulary, calibration.minVocabulary);
  const evidenceMargin = margin((signals.coverage + signals.dense) / 2, calibration.minEvidence / 2);
  // The dense rule alone refuses a question its cosine puts far from every section, unless the best sections hold
  // most of the question's words: a small encoder gives short questions about names it never learned ("what happens
  // if Qdrant goes down?") low cosines even against the section that answers them, and the words are the better
  // evidence there. Off-topic questions that share words with the docs share few of them with their best sections.
  // A cosine the words overrule does not lower the confidence either.
  const wordsOverruleDense = signals.coverage >= limits.denseVetoCoverage;
  const denseMargin = wordsOverruleDense ? 1 : margin(signals.dense, calibration.minDense);
  const confidence = Math.max(0, Math.min(1, vocabularyMargin, evidenceMargin, denseMargin));
  const outOfScope =
    result.fused.length === 0 ||
    signals.missingNames.length > 0 ||
    signals.lonelyNames.length > 0 ||
    signals.vocabulary < calibration.minVocabulary ||
    signals.coverage + signals.dense < calibration.minEvidence ||
    (signals.dense < calibration.minDense && !wordsOverruleDense);
  return { outOfScope, confidence: outOfScope ? Math.min(confidence, 0.49) : Math.max(confidence, 0.5), signals };
}
