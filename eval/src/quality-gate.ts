/**
 * One quality gate for offline retrieval: ingests a corpus into a temporary
 * embedded store with the hashing (`local`) embedder, which keeps CI fast (the
 * neural default is measured by `pnpm eval --set dev` and tested end to end on a
 * small corpus), evaluates a golden question set with the out-of-scope
 * thresholds fitted at that ingest, and checks the figures against floors at
 * what was measured (docs/quality/evaluation.md). Used by the per-corpus `*-quality.test.ts`
 * files; the corpora are read at test time, nothing of them is copied.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadCoreConfig, openRetrieval, runIngest } from '@docs-chat/core';
import { evaluateRetriever } from './evaluate.js';
import type { EvaluationReport } from './evaluate.js';
import { readQuestionSet } from './question-set.js';

export interface QualityFloors {
  recallAt5: number;
  mrrAt5: number;
  outOfScopeTotal: number;
  outOfScopeRejected: number;
  inScopeRejectedAtMost: number;
}

export function describeQualityGate(name: string, docsDir: string, questionsFile: string, floors: QualityFloors): void {
  describe(`offline retrieval on the ${name} docs`, () => {
    let report: EvaluationReport;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-quality-'));
      const config = loadCoreConfig({
        ...process.env,
        DATA_DIR: dataDir,
        VECTOR_STORE: 'embedded',
        QDRANT_URL: '',
        EMBEDDING_PROVIDER: 'local',
      });
      await runIngest(config, { docsDir, rebuild: true });
      const retrieval = await openRetrieval(config);
      try {
        report = await evaluateRetriever(retrieval.retriever, await readQuestionSet(questionsFile), 5);
      } finally {
        await retrieval.close();
      }
    }, 180_000);

    afterAll(async () => {
      await fs.rm(dataDir, { recursive: true, force: true });
    });

    it(`finds an expected section in the top five for at least ${Math.round(floors.recallAt5 * 100)}% of the in-scope questions`, () => {
      expect(report['recall@5']).toBeGreaterThanOrEqual(floors.recallAt5);
    });

    it(`ranks the first expected section high enough for an MRR@5 of at least ${floors.mrrAt5}`, () => {
      expect(report['mrr@5']).toBeGreaterThanOrEqual(floors.mrrAt5);
    });

    it(`rejects at least ${floors.outOfScopeRejected} of the ${floors.outOfScopeTotal} out-of-scope questions`, () => {
      expect(report.out_of_scope.total).toBe(floors.outOfScopeTotal);
      expect(report.out_of_scope.rejected).toBeGreaterThanOrEqual(floors.outOfScopeRejected);
    });

    it('reports for every question the out-of-scope signals that explain its verdict', () => {
      const thresholds = report.scope_thresholds;
      expect(thresholds).not.toBeNull();
      for (const question of report.questions) {
        const scope = question.scope;
        expect(scope).not.toBeNull();
        const explained =
          scope!.vocabulary < thresholds!.min_vocabulary ||
          scope!.evidence < thresholds!.min_evidence ||
          scope!.missing_names.length > 0 ||
          scope!.lonely_names.length > 0 ||
          question.retrieved.length === 0;
        // Signals are rounded to 3 decimals: a question right on a threshold is left out of the comparison.
        const onEdge =
          Math.abs(scope!.vocabulary - thresholds!.min_vocabulary) < 0.001 || Math.abs(scope!.evidence - thresholds!.min_evidence) < 0.001;
        if (!onEdge) expect({ id: question.id, rejected: question.rejected }).toEqual({ id: question.id, rejected: explained });
      }
    });

    it(`wrongly rejects at most ${floors.inScopeRejectedAtMost} in-scope questions`, () => {
      expect(report.in_scope_rejected).toBeLessThanOrEqual(floors.inScopeRejectedAtMost);
    });
  });
}
