/**
 * Fits the out-of-scope thresholds of one index from the index itself, at
 * ingest, for whatever embedder built it: no embedder runs with thresholds
 * fitted on someone else's docs, and none with placeholders.
 *
 * Two kinds of questions are asked of the new index:
 * - off-topic questions shipped with the product (off-topic-questions.ts):
 *   what a question the docs cannot answer scores here;
 * - pseudo-questions made from the corpus's own headings and sentences: what a
 *   question the docs do answer scores at least.
 * The thresholds go above most off-topic questions, but never above the level
 * that would refuse more than `fitInScopeMissRate` of the pseudo-questions.
 * The fit is recorded in the index (`IndexMeta.extra.scopeFit`) with what it
 * was fitted on; explicit SCOPE_* settings still win (runtime.ts).
 */
import type { Chunk } from '../markdown/document.js';
import type { ScopeProfile } from '../profile/retrieval-profile.js';
import { OFF_TOPIC_QUESTIONS } from './off-topic-questions.js';
import type { ScopeCalibration } from './scope-check.js';

export const SCOPE_FIT_VERSION = 1;
/** Chunks sampled for pseudo-questions (evenly over the corpus): enough for a 2% quantile, cheap to search. */
const PSEUDO_SAMPLE = 60;

export interface ScopeSignalsOf {
  /** The out-of-scope signals of one question on this index (the retriever's explanation). */
  (question: string): Promise<FitSignals>;
}

export interface FitSignals {
  vocabulary: number;
  /** Coverage by the best sections plus the best dense cosine. */
  evidence: number;
  dense: number;
}

export interface ScopeFit extends ScopeCalibration {
  version: number;
  /** What the thresholds were fitted on, for the ingest report and `docs-chat search --explain`. */
  fittedOn: { offTopic: number; pseudoQuestions: number };
  /** Off-topic questions the fitted thresholds refuse (names aside), and pseudo-questions they keep. */
  offTopicRefused: number;
  pseudoKept: number;
}

/** Questions a reader of these docs might ask, made from sampled sections: the heading, and the first sentence. */
export function pseudoQuestions(chunks: readonly Pick<Chunk, 'headingPath' | 'text' | 'part'>[]): string[] {
  const firstParts = chunks.filter((chunk) => chunk.part === 0);
  const stride = Math.max(1, Math.floor(firstParts.length / PSEUDO_SAMPLE));
  const questions: string[] = [];
  for (let index = 0; index < firstParts.length && questions.length < PSEUDO_SAMPLE * 2; index += stride) {
    const chunk = firstParts[index] as Pick<Chunk, 'headingPath' | 'text'>;
    const heading = chunk.headingPath.at(-1);
    if (heading && chunk.headingPath.length > 1 && heading.split(/\s+/).length >= 2) questions.push(heading);
    const sentence = firstSentence(chunk.text);
    if (sentence) questions.push(sentence);
  }
  return questions;
}

/** The first prose sentence of a chunk of 6 words or more, cut to 20 words; code and tables are skipped. */
function firstSentence(text: string): string | null {
  const prose = text
    .replace(/```[\s\S]*?```/g, ' ')
    .split(/\n\s*\n/)
    .filter((paragraph) => !/^\s*(\||<|import |export |[-*] |\d+\. |>)/.test(paragraph))
    .join(' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_#]+/g, '')
    .replace(/\s+/g, ' ');
  for (const sentence of prose.split(/(?<=[.!?])\s+/)) {
    const words = sentence.trim().split(' ');
    if (words.length >= 6) return words.slice(0, 20).join(' ');
  }
  return null;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const position = Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))));
  return sorted[position] as number;
}

/** Puts a lexical threshold just above the quantile it is fitted at. */
const LEXICAL_STEP = 0.01;
const round = (value: number): number => Number(Math.max(0, value).toFixed(3));

/**
 * The fitted thresholds for an index, given how its questions score:
 * - vocabulary and evidence (lexical, and lexical plus cosine): at the off-topic
 *   questions' `fitLexicalQuantile`, so the clearly foreign half is refused on
 *   these alone; never above what the docs' own pseudo-questions reach;
 * - dense cosine: just above the off-topic questions' `fitDenseQuantile`, but
 *   only when that stays clearly under the pseudo-questions' low end: an
 *   embedder whose cosine does not part the two on this corpus (the hashing
 *   one, which is lexical) gets no dense rule rather than one that refuses
 *   real questions.
 */
export async function fitScopeThresholds(
  chunks: readonly Pick<Chunk, 'headingPath' | 'text' | 'part'>[],
  signalsOf: ScopeSignalsOf,
  profile: ScopeProfile,
): Promise<ScopeFit> {
  const offTopic: FitSignals[] = [];
  for (const question of OFF_TOPIC_QUESTIONS) offTopic.push(await signalsOf(question));
  const pseudo: FitSignals[] = [];
  for (const question of pseudoQuestions(chunks)) pseudo.push(await signalsOf(question));
  // Docs too short to make a pseudo-question (a page or two of a few words) give no in-scope evidence: the lexical
  // thresholds then rest on the off-topic questions alone, instead of dropping to 0 and refusing nothing.
  const low = (signal: keyof FitSignals): number =>
    pseudo.length === 0
      ? Number.POSITIVE_INFINITY
      : quantile(
          pseudo.map((entry) => entry[signal]),
          profile.fitInScopeMissRate,
        );
  // Just above the quantile: on a small corpus half the off-topic questions may share no word at all (0), and they go.
  const lexical = (signal: 'vocabulary' | 'evidence'): number =>
    round(
      Math.min(
        quantile(
          offTopic.map((entry) => entry[signal]),
          profile.fitLexicalQuantile,
        ) + LEXICAL_STEP,
        low(signal),
      ),
    );
  const denseAbove =
    quantile(
      offTopic.map((entry) => entry.dense),
      profile.fitDenseQuantile,
    ) + profile.fitDenseMargin;
  // No dense rule without pseudo-questions: how a cosine parts real questions from foreign ones is unknown.
  const minDense =
    profile.denseRule >= 1 && pseudo.length > 0 && denseAbove <= low('dense') - profile.fitDenseMargin ? round(denseAbove) : 0;
  const calibration: ScopeCalibration = { minVocabulary: lexical('vocabulary'), minEvidence: lexical('evidence'), minDense };
  const refused = (entry: FitSignals): boolean =>
    entry.vocabulary < calibration.minVocabulary || entry.evidence < calibration.minEvidence || entry.dense < calibration.minDense;
  return {
    version: SCOPE_FIT_VERSION,
    ...calibration,
    fittedOn: { offTopic: offTopic.length, pseudoQuestions: pseudo.length },
    offTopicRefused: offTopic.filter(refused).length,
    pseudoKept: pseudo.filter((entry) => !refused(entry)).length,
  };
}

/** The fit recorded in `IndexMeta.extra.scopeFit`, or null when absent or from another version. */
export function readScopeFit(extra: Record<string, unknown> | undefined): ScopeFit | null {
  const stored = extra?.scopeFit as Partial<ScopeFit> | undefined;
  if (
    !stored ||
    stored.version !== SCOPE_FIT_VERSION ||
    typeof stored.minVocabulary !== 'number' ||
    typeof stored.minEvidence !== 'number' ||
    typeof stored.minDense !== 'number'
  ) {
    return null;
  }
  return stored as ScopeFit;
}
