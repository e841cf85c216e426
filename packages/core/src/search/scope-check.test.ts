import type { Chunk } from '../markdown/document.js';
import { makeChunk, pointId } from '../stores/vector-store.conformance.js';
import type { HybridResult } from '../stores/vector-store.js';
import { analyzeTerms } from '../text/text-analysis.js';
import type { TermStatistics } from '../text/term-statistics.js';
import { SHARED_PROFILE } from '../profile/retrieval-profile.js';
import { judgeScope, scopeSignals, type ScopeCalibration } from './scope-check.js';

const CALIBRATION: ScopeCalibration = { minVocabulary: 0.3, minEvidence: 0.5, minDense: 0 };

/** A section of the "Updating state" page, from the store conformance suite's chunk. */
function section(n: number, heading: string, text: string): Chunk {
  const headingPath = ['Updating state', heading];
  return {
    ...makeChunk(n, 'updating-state.md', n),
    title: 'Updating state',
    heading,
    headingPath,
    text,
    indexText: `${headingPath.join(' > ')}\n\n${text}`,
  };
}

/** The best sections for a question about nested updates by hand: none of them names the helper library. */
const RESULT: HybridResult = {
  fused: [
    section(
      1,
      'Updating nested fields by hand',
      'Copy every level of a nested object with the spread operator, down to the field you change.',
    ),
    section(2, 'Updating arrays', 'Return a new array with map or filter instead of changing the old one in place.'),
    section(3, 'Keeping reducers pure', 'A reducer must not change its arguments; copy before you change a nested field.'),
  ].map((payload, index) => ({ id: payload.id, score: 1 / (index + 1), payload })),
  dense: [{ id: pointId(1), score: 0.6 }],
  sparse: [{ id: pointId(1), score: 5 }],
  pages: [],
};

/** Word statistics of 200 sections, `heldBy` of which name the helper library Draftkit. */
function statistics(heldBy: number): TermStatistics {
  const df = new Map<string, number>();
  const words = analyzeTerms(RESULT.fused.map((point) => point.payload.indexText).join(' ') + ' deeply without update nowhere');
  for (const word of words) df.set(word, 20);
  df.set(analyzeTerms('Draftkit')[0] as string, heldBy);
  return { chunks: 200, df };
}

const QUESTION = 'How do I update a deeply nested field by hand, without Draftkit?';
const LIMITS = SHARED_PROFILE.scope;

describe('out-of-scope names', () => {
  it('refuses a question naming something the docs mention only in passing when the best sections lack it', () => {
    const signals = scopeSignals(QUESTION, RESULT, statistics(2), undefined, LIMITS);
    expect(signals.missingNames).toEqual(['Draftkit']);
    expect(judgeScope(QUESTION, RESULT, statistics(2), CALIBRATION, undefined, LIMITS).outOfScope).toBe(true);
  });

  it('does not count a name the docs hold in many sections as missing: it is one of their subjects', () => {
    const stats = statistics(LIMITS.subjectNameSections);
    expect(scopeSignals(QUESTION, RESULT, stats, undefined, LIMITS).missingNames).toEqual([]);
    const verdict = judgeScope(QUESTION, RESULT, stats, CALIBRATION, undefined, LIMITS);
    expect(verdict.outOfScope).toBe(false);
    expect(verdict.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it('follows the profile: a higher bar for a subject makes the same name missing again', () => {
    const limits = { ...LIMITS, subjectNameSections: LIMITS.subjectNameSections + 1 };
    expect(scopeSignals(QUESTION, RESULT, statistics(LIMITS.subjectNameSections), undefined, limits).missingNames).toEqual(['Draftkit']);
  });

  it('still refuses a name the docs never mention at all', () => {
    const question = 'How do I update a deeply nested field with Vuex?';
    expect(
      judgeScope(question, RESULT, statistics(LIMITS.subjectNameSections), CALIBRATION, undefined, LIMITS).signals.missingNames,
    ).toEqual(['Vuex']);
  });

  it('does not take a number with its unit for a name: a reader quoting a size is not asking about another product', () => {
    const stats = statistics(2);
    expect(scopeSignals('Is 400MB normal for a nested field update by hand?', RESULT, stats, undefined, LIMITS).missingNames).toEqual([]);
    // The same place held by a word of capitals is still a name the docs lack.
    expect(scopeSignals('Is FOURMB normal for a nested field update by hand?', RESULT, stats, undefined, LIMITS).missingNames).toEqual([
      'FOURMB',
    ]);
  });

  it('leaves alone a name a long question mentions in passing, and refuses it when the question is about it', () => {
    const long =
      'Our reducers are pure: every level of a nested object is copied with the spread operator, a new array is returned ' +
      'with map or filter instead of changing the old one in place, arguments are never changed, and Draftkit is nowhere. ' +
      'How do I copy a deeply nested field by hand before I change it?';
    const stats = statistics(2);
    expect(scopeSignals(long, RESULT, stats, undefined, LIMITS).missingNames).toEqual([]);
    expect(judgeScope(long, RESULT, stats, CALIBRATION, undefined, LIMITS).outOfScope).toBe(false);
    // The share is the profile's: with no minimum the passing mention refuses the question again.
    expect(scopeSignals(long, RESULT, stats, undefined, { ...LIMITS, nameMinShare: 0 }).missingNames).toEqual(['Draftkit']);
    expect(judgeScope('How do I install Draftkit?', RESULT, stats, CALIBRATION, undefined, LIMITS).signals.missingNames).toEqual([
      'Draftkit',
    ]);
  });
});

describe('names in pasted errors and names mentioned apart', () => {
  it('reads no names in a question that is an error message alone: its capitals are codes the reader copied', () => {
    const pasted = 'updater: Error: EDRAFTKIT: cannot update the nested field by hand';
    expect(scopeSignals(pasted, RESULT, statistics(2), undefined, LIMITS).missingNames).toEqual([]);
    // The same code in the reader's own sentence is a name the docs lack.
    expect(
      scopeSignals('Why does EDRAFTKIT stop a nested field update by hand?', RESULT, statistics(2), undefined, LIMITS).missingNames,
    ).toEqual(['EDRAFTKIT']);
  });

  /** Sections that name Draftkit only as the tool the tests run with. */
  const PASSING: HybridResult = {
    ...RESULT,
    fused: [
      ...RESULT.fused,
      { id: pointId(4), score: 0.2, payload: section(4, 'Running the tests', 'The test suite runs with Draftkit in watch mode.') },
    ],
  };

  it('refuses a name the best sections hold only apart from the rest of the question', () => {
    const question = 'How do I write a custom Draftkit snapshot serializer for nested objects?';
    expect(scopeSignals(question, PASSING, statistics(2), undefined, LIMITS).lonelyNames).toEqual(['Draftkit']);
  });

  it('needs more than one other informative word before a name counts as mentioned apart', () => {
    const question = 'Does it support Draftkit?';
    expect(scopeSignals(question, PASSING, statistics(2), undefined, LIMITS).lonelyNames).toEqual([]);
    expect(scopeSignals(question, PASSING, statistics(2), undefined, { ...LIMITS, nameMinCompanions: 1 }).lonelyNames).toEqual([
      'Draftkit',
    ]);
  });
});

describe('the dense rule', () => {
  const DENSE: ScopeCalibration = { minVocabulary: 0.3, minEvidence: 0.5, minDense: 0.3 };
  /** The best cosine 0.23: below the dense threshold, as a small encoder gives a short question about a name it never learned. */
  const FAR: HybridResult = { ...RESULT, dense: [{ id: pointId(1), score: 0.23 }] };

  it('refuses a question its cosine puts far from every section when the best sections hold few of its words', () => {
    const question = 'How long should bread dough rest before a nested field is baked?';
    const signals = scopeSignals(question, FAR, statistics(2), undefined, LIMITS);
    expect(signals.coverage).toBeLessThan(LIMITS.denseVetoCoverage);
    expect(judgeScope(question, FAR, statistics(2), DENSE, undefined, LIMITS).outOfScope).toBe(true);
  });

  it('lets the words overrule a low cosine when the best sections hold most of them', () => {
    const question = 'How do I update a nested field by hand?';
    const signals = scopeSignals(question, FAR, statistics(2), undefined, LIMITS);
    expect(signals.coverage).toBeGreaterThanOrEqual(LIMITS.denseVetoCoverage);
    const verdict = judgeScope(question, FAR, statistics(2), DENSE, undefined, LIMITS);
    expect(verdict.outOfScope).toBe(false);
    expect(verdict.confidence).toBeGreaterThan(0.5);
    // With the exemption off (a coverage no question reaches), the cosine refuses it as before.
    expect(judgeScope(question, FAR, statistics(2), DENSE, undefined, { ...LIMITS, denseVetoCoverage: 1.01 }).outOfScope).toBe(true);
  });
});
