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

/** Thresholds per embedder. */
export interface ScopeCalibration {
  /** Below this vocabulary share the question is out of scope, whatever else matches. */
  minVocabulary: number;
  /** Below this sum of coverage by the best sections and best dense cosine, the question is out of scope too. */
  minEvidence: number;
}

/** How many of the best sections count for coverage: an answer may span a couple of sections. */
const COVERAGE_SECTIONS = 3;

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

/** Sections searched for a name together with the question's other words. */
const NAME_CONTEXT_SECTIONS = 10;
/** Words rarer than this IDF count as informative companions of a name (common words prove nothing). */
const COMPANION_MIN_IDF = 2;

/**
 * Acronyms that are ordinary vocabulary in technical writing, not the name of a
 * product the docs might not cover: "out of RAM", "call the API", "a JSON file"
 * say nothing about which tool a question is about.
 */
const COMMON_ACRONYMS = new Set(
  (
    'RAM CPU CPUS GPU API APIS URL URLS URI HTTP HTTPS JSON YAML TOML XML HTML CSV PDF SQL CLI SDK IDE GUI ' +
    'DNS SSH TLS SSL TCP UDP CORS CSRF JWT UUID ASCII UTF ENV EOF FAQ TODO README PR PRS CI CD ETA'
  ).split(' '),
);

/** Words of the raw question written as names: capitalised after the first word, camelCase, or all caps. */
function nameLikeWords(query: string): string[] {
  const names: string[] = [];
  for (const sentence of query.split(/[.!?]\s+/)) {
    const words = sentence.match(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu) ?? [];
    words.forEach((word, position) => {
      const bare = word.replace(/['’]s$/, '').replace(/[.'’-]+$/, '');
      const capitalisedInside = position > 0 && /^\p{Lu}/u.test(bare);
      const mixedCase = /\p{Ll}\p{Lu}/u.test(bare);
      const allCaps = bare.length >= 3 && /^[\p{Lu}\p{N}]+$/u.test(bare) && /\p{Lu}/u.test(bare);
      // "I", "I've", "I'm" are capitalised but name nothing.
      if (/^I(['’]|$)/.test(word)) return;
      // Two-letter capitals ("OK", "UI", "JS") are words or too generic to name anything.
      if (bare.length < 3 && /^[\p{Lu}\p{N}]+$/u.test(bare)) return;
      if (COMMON_ACRONYMS.has(bare.replace(/s$/, 'S'))) return;
      if (capitalisedInside || mixedCase || allCaps) names.push(bare);
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

export function scopeSignals(query: string, result: HybridResult, stats: TermStatistics | null, synonymsOf: SynonymLookup = noSynonyms): ScopeSignals {
  const words = [...new Set(analyzeTerms(query))];
  const dense = result.dense[0]?.score ?? 0;
  if (words.length === 0) return { vocabulary: 0, coverage: 0, dense, missingNames: [], lonelyNames: [] };
  const topWords = new Set(
    result.fused.slice(0, COVERAGE_SECTIONS).flatMap((point) => analyzeTerms(`${point.payload.headingPath.join('\n')}\n${point.payload.text}`)),
  );
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
  const missingNames = nameLikeWords(query).filter((name) => {
    const whole = analyzeTerms(name)[0];
    return whole !== undefined && !covered(whole);
  });
  const sectionWords = result.fused
    .slice(0, NAME_CONTEXT_SECTIONS)
    .map((point) => new Set(analyzeTerms(`${point.payload.headingPath.join('\n')}\n${point.payload.text}`)));
  const lonelyNames = nameLikeWords(query).filter((name) => {
    const whole = analyzeTerms(name)[0];
    if (whole === undefined) return false;
    const companions = words.filter((word) => word !== whole && idf(word) > COMPANION_MIN_IDF);
    const withName = sectionWords.filter((section) => section.has(whole));
    return companions.length > 0 && withName.length > 0 && !withName.some((section) => companions.some((word) => section.has(word)));
  });
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
): ScopeVerdict {
  const signals = scopeSignals(query, result, stats, synonymsOf);
  const vocabularyMargin = margin(signals.vocabulary, calibration.minVocabulary);
  const evidenceMargin = margin((signals.coverage + signals.dense) / 2, calibration.minEvidence / 2);
  const confidence = Math.max(0, Math.min(1, Math.min(vocabularyMargin, evidenceMargin)));
  const outOfScope =
    result.fused.length === 0 ||
    signals.missingNames.length > 0 ||
    signals.lonelyNames.length > 0 ||
    signals.vocabulary < calibration.minVocabulary ||
    signals.coverage + signals.dense < calibration.minEvidence;
  return { outOfScope, confidence: outOfScope ? Math.min(confidence, 0.49) : Math.max(confidence, 0.5), signals };
}

/**
 * Offline `local` embedder, set from per-question signals on three sets (redux,
 * typescript-eslint, docs-site; see the closing note of the retrieval work):
 * in-scope questions kept >= 0.44 of their vocabulary (out-of-scope: 0 to 0.34
 * when they are about something else entirely), and coverage + cosine >= 0.65
 * (out-of-scope questions about neighbouring tools: 0.59 to 1.2, so this rule
 * only catches the clear ones; names catch most of the rest).
 */
export const LOCAL_CALIBRATION: ScopeCalibration = { minVocabulary: 0.4, minEvidence: 0.6 };

/**
 * Gemini `gemini-embedding-001`: NOT FITTED (no API key here), a placeholder.
 * Unrelated texts sit around 0.5-0.6 cosine with Gemini against about 0.3 for
 * the local embedder, so the evidence bar is raised by that difference; the
 * lexical rules are the local ones. Admins fit it on their own golden set with
 * `pnpm eval` (its vocabulary and evidence columns) and SCOPE_MIN_VOCABULARY /
 * SCOPE_MIN_EVIDENCE, which override these values (runtime.ts).
 */
export const GEMINI_CALIBRATION: ScopeCalibration = { minVocabulary: 0.4, minEvidence: 0.6 + 0.35 };

export function calibrationFor(embedder: { provider: string }): ScopeCalibration {
  return embedder.provider === 'local' ? LOCAL_CALIBRATION : GEMINI_CALIBRATION;
}
