import { SHARED_PROFILE } from '../profile/retrieval-profile.js';
import { OFF_TOPIC_QUESTIONS } from './off-topic-questions.js';
import { fitScopeThresholds, pseudoQuestions, type FitSignals } from './scope-fit.js';

const chunks = Array.from({ length: 40 }, (_, index) => ({
  headingPath: ['Widgets', `Tuning widget number ${index}`],
  text: `Every widget ${index} can be tuned with its own dial before the first start of the engine.`,
  part: 0,
}));

describe('scope fit', () => {
  it('makes pseudo-questions from the headings and first sentences of the docs', () => {
    const questions = pseudoQuestions(chunks);
    expect(questions).toContain('Tuning widget number 0');
    expect(questions).toContain('Every widget 0 can be tuned with its own dial before the first start of the engine.');
  });

  it('puts the thresholds above most off-topic questions and below the questions the docs answer', async () => {
    const offTopic = new Set(OFF_TOPIC_QUESTIONS);
    const signals = async (question: string): Promise<FitSignals> =>
      offTopic.has(question)
        ? { vocabulary: 0.2, evidence: 0.4, dense: 0.2 + (question.length % 10) / 100 }
        : { vocabulary: 1, evidence: 1.5, dense: 0.7 };
    const fit = await fitScopeThresholds(chunks, signals, SHARED_PROFILE.scope);
    expect(fit.minVocabulary).toBeCloseTo(0.21, 5);
    expect(fit.minEvidence).toBeCloseTo(0.41, 5);
    expect(fit.minDense).toBeGreaterThan(0.27);
    expect(fit.minDense).toBeLessThan(0.7);
    expect(fit.offTopicRefused).toBe(OFF_TOPIC_QUESTIONS.length);
    expect(fit.pseudoKept).toBe(fit.fittedOn.pseudoQuestions);
  });

  it('still refuses questions that share no word with docs too short to make a pseudo-question from', async () => {
    const tiny = [{ headingPath: ['Pub'], text: 'Text here.', part: 0 }];
    expect(pseudoQuestions(tiny)).toEqual([]);
    const signals = async (question: string): Promise<FitSignals> => ({
      vocabulary: question.length % 2 === 0 ? 0 : 0.5,
      evidence: 0.1,
      dense: 0.2,
    });
    const fit = await fitScopeThresholds(tiny, signals, SHARED_PROFILE.scope);
    expect(fit.minVocabulary).toBeGreaterThan(0);
    expect(fit.minEvidence).toBeGreaterThan(0);
    expect(fit.minDense).toBe(0);
    expect(fit.offTopicRefused).toBeGreaterThan(0);
  });

  it('fits no dense rule when the cosine does not part off-topic questions from the docs, rather than refuse real ones', async () => {
    const signals = async (): Promise<FitSignals> => ({ vocabulary: 1, evidence: 1.2, dense: 0.3 });
    const fit = await fitScopeThresholds(chunks, signals, SHARED_PROFILE.scope);
    expect(fit.minDense).toBe(0);
    expect(fit.pseudoKept).toBe(fit.fittedOn.pseudoQuestions);
  });
});
