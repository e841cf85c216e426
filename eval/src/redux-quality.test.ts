/**
 * Quality gate on the redux corpus and question set in ../shared.
 *
 * The checks hold issue 2's targets for the offline defaults: recall@5 0.90,
 * at least 7 of 8 out-of-scope questions rejected, at most 2 in-scope ones
 * wrongly rejected. MRR@5 was held at the 0.70 target too (measured 0.705);
 * the floor is 0.69 since the word-list audit of issue 10 removed thesaurus
 * entries that only joined single dev questions to their answers ("spec" /
 * "test" among them): measured 0.697 with the hashing embedder after it
 * (docs-site/docs/quality/evaluation.md, "Audit of the word lists").
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeQualityGate } from './quality-gate.js';

const shared = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared');

describeQualityGate('redux', path.join(shared, 'corpora', 'redux'), path.join(shared, 'eval', 'redux.questions.json'), {
  recallAt5: 0.9,
  // 0.697 measured after the word-list audit (was 0.705): the removed entries fitted single dev questions.
  mrrAt5: 0.69,
  outOfScopeTotal: 8,
  outOfScopeRejected: 7,
  inScopeRejectedAtMost: 2,
});
