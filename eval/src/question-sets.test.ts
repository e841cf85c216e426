/**
 * Every expected section of every question set in the repository exists in its docs. A renamed heading in
 * this guide, or a new fastify release that moves one, would otherwise turn a question into a silent miss
 * and lower the measured recall for a reason that has nothing to do with retrieval.
 */
import { loadMarkdownCorpus } from './engines/markdown-corpus.js';
import { describeUnmatched, unmatchedExpectations } from './hit-matching.js';
import { readQuestionSet } from './question-set.js';
import { QUESTION_SETS } from './question-sets.js';

describe.each(QUESTION_SETS.map((set) => [set.name, set] as const))('the %s question set', (_name, set) => {
  it('expects only sections its docs have', async () => {
    const { chunks } = await loadMarkdownCorpus(set.docs);
    expect(chunks.length).toBeGreaterThan(0);
    const problems = unmatchedExpectations(await readQuestionSet(set.questions), chunks).map((entry) => describeUnmatched(entry, set.docs));
    expect(problems).toEqual([]);
  });
});
