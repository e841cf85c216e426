/** Scores a retriever on a golden question set. */
import type { Retriever } from '@docs-chat/core';
import type { GoldenQuestion } from './question-set.js';
import { matchesAny } from './hit-matching.js';

export interface QuestionResult {
  id: string;
  question: string;
  in_scope: boolean;
  kind?: string;
  /** 1-based rank of the first hit within k, or null. */
  first_hit_rank: number | null;
  rejected: boolean;
  confidence: number;
  /**
   * The out-of-scope check's signals for this question (see docs-chat search --explain): what to look at
   * when fitting SCOPE_MIN_VOCABULARY and SCOPE_MIN_EVIDENCE for an embedder on your own golden set.
   */
  scope: { vocabulary: number; evidence: number; missing_names: string[]; lonely_names: string[] } | null;
  top_score: number | null;
  retrieved: { file: string; headingPath: string[]; score: number; hit: boolean }[];
}

export interface EvaluationReport {
  'recall@1': number;
  'recall@3': number;
  'recall@5': number;
  'mrr@5': number;
  'precision@5': number;
  mean_top_score: number;
  out_of_scope: { rejected: number; total: number };
  in_scope_rejected: number;
  in_scope_total: number;
  /** The thresholds the check used: out of scope below either one, or with a missing or lonely name. */
  scope_thresholds: { min_vocabulary: number; min_evidence: number } | null;
  k: number;
  questions: QuestionResult[];
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export async function evaluateRetriever(retriever: Retriever, questions: GoldenQuestion[], k = 5): Promise<EvaluationReport> {
  const results: QuestionResult[] = [];
  let thresholds: EvaluationReport['scope_thresholds'] = null;
  for (const question of questions) {
    const response = await retriever.search(question.question, { k: Math.max(k, 5), explain: true });
    const scope = response.explanation?.scope;
    if (scope) thresholds = { min_vocabulary: scope.minVocabulary, min_evidence: scope.minEvidence };
    const retrieved = response.hits.map((hit) => ({
      file: hit.chunk.file,
      headingPath: hit.chunk.headingPath,
      score: hit.score,
      hit: question.in_scope && matchesAny(hit.chunk, question.expected),
    }));
    const firstHit = retrieved.slice(0, k).findIndex((entry) => entry.hit);
    results.push({
      id: question.id,
      question: question.question,
      in_scope: question.in_scope,
      ...(question.kind === undefined ? {} : { kind: question.kind }),
      first_hit_rank: firstHit === -1 ? null : firstHit + 1,
      rejected: response.outOfScope,
      confidence: round(response.confidence),
      scope: scope
        ? { vocabulary: round(scope.vocabulary), evidence: round(scope.coverage + scope.dense), missing_names: scope.missingNames, lonely_names: scope.lonelyNames }
        : null,
      top_score: response.hits[0]?.score ?? null,
      retrieved,
    });
  }
  const inScope = results.filter((result) => result.in_scope);
  const outOfScope = results.filter((result) => !result.in_scope);
  const recallAt = (n: number): number => round(mean(inScope.map((result) => (result.first_hit_rank !== null && result.first_hit_rank <= n ? 1 : 0))));
  return {
    'recall@1': recallAt(1),
    'recall@3': recallAt(3),
    'recall@5': recallAt(5),
    'mrr@5': round(mean(inScope.map((result) => (result.first_hit_rank !== null && result.first_hit_rank <= 5 ? 1 / result.first_hit_rank : 0)))),
    'precision@5': round(mean(inScope.map((result) => result.retrieved.slice(0, 5).filter((entry) => entry.hit).length / 5))),
    mean_top_score: round(mean(results.map((result) => result.top_score ?? 0))),
    out_of_scope: { rejected: outOfScope.filter((result) => result.rejected).length, total: outOfScope.length },
    in_scope_rejected: inScope.filter((result) => result.rejected).length,
    in_scope_total: inScope.length,
    scope_thresholds: thresholds,
    k,
    questions: results,
  };
}

function scopeCell(result: QuestionResult, signal: 'vocabulary' | 'evidence'): string {
  return result.scope ? result.scope[signal].toFixed(2) : '';
}

/** Names that decided the verdict, if any: `missing: Vuex`, `lonely: Jest`. */
function scopeReasons(result: QuestionResult): string {
  if (!result.scope) return '';
  const reasons = [
    ...(result.scope.missing_names.length > 0 ? [`missing: ${result.scope.missing_names.join(', ')}`] : []),
    ...(result.scope.lonely_names.length > 0 ? [`lonely: ${result.scope.lonely_names.join(', ')}`] : []),
  ];
  return reasons.join('; ');
}

export function formatEvaluation(report: EvaluationReport): string {
  const lines: string[] = [];
  lines.push('| metric | value |', '| --- | --- |');
  for (const key of ['recall@1', 'recall@3', 'recall@5', 'mrr@5', 'precision@5', 'mean_top_score'] as const) {
    lines.push(`| ${key} | ${report[key].toFixed(3)} |`);
  }
  lines.push(`| out-of-scope rejected | ${report.out_of_scope.rejected} / ${report.out_of_scope.total} |`);
  lines.push(`| in-scope wrongly rejected | ${report.in_scope_rejected} / ${report.in_scope_total} |`);
  if (report.scope_thresholds) {
    lines.push(
      '',
      `Out of scope when vocabulary < ${report.scope_thresholds.min_vocabulary}, evidence < ${report.scope_thresholds.min_evidence}, or a name is missing or lonely (the "why" column).`,
    );
  }
  lines.push(
    '',
    '| id | kind | in scope | first hit | rejected | confidence | vocabulary | evidence | why | top result |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const result of report.questions) {
    const top = result.retrieved[0];
    lines.push(
      `| ${result.id} | ${result.kind ?? ''} | ${result.in_scope ? 'yes' : 'no'} | ${result.first_hit_rank ?? (result.in_scope ? 'MISS' : '-')} | ${result.rejected ? 'yes' : 'no'} | ${result.confidence.toFixed(2)} | ${scopeCell(result, 'vocabulary')} | ${scopeCell(result, 'evidence')} | ${scopeReasons(result)} | ${top ? `${top.file} › ${top.headingPath.slice(1).join(' › ')}` : '(none)'} |`,
    );
  }
  return lines.join('\n');
}
