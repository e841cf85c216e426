/** Scores a retriever on a golden question set. */
import type { Retriever } from '@docs-chat/core';
import type { GoldenQuestion } from './question-set.js';
import { matchesAny, type UnmatchedExpectation } from './hit-matching.js';

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
  scope: { vocabulary: number; evidence: number; dense: number; missing_names: string[]; lonely_names: string[] } | null;
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
  scope_thresholds: { min_vocabulary: number; min_evidence: number; min_dense: number } | null;
  k: number;
  /** The in-scope figures by question kind (keyword, paraphrase, howto, troubleshooting, conceptual, multi-section). */
  by_kind: Record<string, KindFigures>;
  questions: QuestionResult[];
  /** Expected sections no section of the docs can match (hit-matching.ts), when there are any. */
  unmatched_expected?: UnmatchedExpectation[];
}

export interface KindFigures {
  questions: number;
  'recall@1': number;
  'recall@5': number;
  'mrr@5': number;
}

/** Kinds in the order reports list them; others follow alphabetically. */
const KIND_ORDER = ['keyword', 'paraphrase', 'howto', 'troubleshooting', 'conceptual', 'multi-section'];

function figuresOf(results: QuestionResult[]): KindFigures {
  const within = (n: number) => (result: QuestionResult) => (result.first_hit_rank !== null && result.first_hit_rank <= n ? 1 : 0);
  return {
    questions: results.length,
    'recall@1': round(mean(results.map(within(1)))),
    'recall@5': round(mean(results.map(within(5)))),
    'mrr@5': round(
      mean(results.map((result) => (result.first_hit_rank !== null && result.first_hit_rank <= 5 ? 1 / result.first_hit_rank : 0))),
    ),
  };
}

export function figuresByKind(results: QuestionResult[]): Record<string, KindFigures> {
  const kinds = [...new Set(results.filter((result) => result.in_scope).map((result) => result.kind ?? 'other'))];
  kinds.sort((a, b) => (KIND_ORDER.indexOf(a) + 1 || 99) - (KIND_ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));
  return Object.fromEntries(
    kinds.map((kind) => [kind, figuresOf(results.filter((result) => result.in_scope && (result.kind ?? 'other') === kind))]),
  );
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export async function evaluateRetriever(
  retriever: Pick<Retriever, 'search'>,
  questions: GoldenQuestion[],
  k = 5,
): Promise<EvaluationReport> {
  const results: QuestionResult[] = [];
  let thresholds: EvaluationReport['scope_thresholds'] = null;
  for (const question of questions) {
    const response = await retriever.search(question.question, { k: Math.max(k, 5), explain: true });
    const scope = response.explanation?.scope;
    if (scope) thresholds = { min_vocabulary: scope.minVocabulary, min_evidence: scope.minEvidence, min_dense: scope.minDense };
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
        ? {
            vocabulary: round(scope.vocabulary),
            evidence: round(scope.coverage + scope.dense),
            dense: round(scope.dense),
            missing_names: scope.missingNames,
            lonely_names: scope.lonelyNames,
          }
        : null,
      top_score: response.hits[0]?.score ?? null,
      retrieved,
    });
  }
  const inScope = results.filter((result) => result.in_scope);
  const outOfScope = results.filter((result) => !result.in_scope);
  const recallAt = (n: number): number =>
    round(mean(inScope.map((result) => (result.first_hit_rank !== null && result.first_hit_rank <= n ? 1 : 0))));
  return {
    'recall@1': recallAt(1),
    'recall@3': recallAt(3),
    'recall@5': recallAt(5),
    'mrr@5': round(
      mean(inScope.map((result) => (result.first_hit_rank !== null && result.first_hit_rank <= 5 ? 1 / result.first_hit_rank : 0))),
    ),
    'precision@5': round(mean(inScope.map((result) => result.retrieved.slice(0, 5).filter((entry) => entry.hit).length / 5))),
    mean_top_score: round(mean(results.map((result) => result.top_score ?? 0))),
    out_of_scope: { rejected: outOfScope.filter((result) => result.rejected).length, total: outOfScope.length },
    in_scope_rejected: inScope.filter((result) => result.rejected).length,
    in_scope_total: inScope.length,
    scope_thresholds: thresholds,
    k,
    by_kind: figuresByKind(results),
    questions: results,
  };
}

function scopeCell(result: QuestionResult, signal: 'vocabulary' | 'evidence' | 'dense'): string {
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
      `Out of scope when vocabulary < ${report.scope_thresholds.min_vocabulary}, evidence < ${report.scope_thresholds.min_evidence}, dense < ${report.scope_thresholds.min_dense}, or a name is missing or lonely (the "why" column).`,
    );
  }
  lines.push('', '| kind | questions | recall@1 | recall@5 | mrr@5 |', '| --- | --- | --- | --- | --- |');
  for (const [kind, figures] of Object.entries(report.by_kind)) {
    lines.push(
      `| ${kind} | ${figures.questions} | ${figures['recall@1'].toFixed(3)} | ${figures['recall@5'].toFixed(3)} | ${figures['mrr@5'].toFixed(3)} |`,
    );
  }
  lines.push(
    '',
    '| id | kind | in scope | first hit | rejected | confidence | vocabulary | evidence | dense | why | top result |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const result of report.questions) {
    const top = result.retrieved[0];
    lines.push(
      `| ${result.id} | ${result.kind ?? ''} | ${result.in_scope ? 'yes' : 'no'} | ${result.first_hit_rank ?? (result.in_scope ? 'MISS' : '-')} | ${result.rejected ? 'yes' : 'no'} | ${result.confidence.toFixed(2)} | ${scopeCell(result, 'vocabulary')} | ${scopeCell(result, 'evidence')} | ${scopeCell(result, 'dense')} | ${scopeReasons(result)} | ${top ? `${top.file} › ${top.headingPath.slice(1).join(' › ')}` : '(none)'} |`,
    );
  }
  return lines.join('\n');
}

/** One row per set and kind, ours beside the baseline: what docs/quality/evaluation.md shows. */
export function formatComparison(rows: { set: string; role: string; engine: string; report: EvaluationReport }[]): string {
  const engines = [...new Set(rows.map((row) => row.engine))];
  const sets = [...new Set(rows.map((row) => row.set))];
  const header = ['set', 'role', 'kind', 'n', ...engines.flatMap((engine) => [`${engine} R@1`, `${engine} R@5`, `${engine} MRR@5`])];
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  const cell = (value: number | undefined) => (value === undefined ? '' : value.toFixed(2));
  for (const set of sets) {
    const ofSet = rows.filter((row) => row.set === set);
    const first = ofSet[0] as (typeof rows)[number];
    const kinds = Object.keys(first.report.by_kind);
    const all = (report: EvaluationReport): KindFigures => ({
      questions: report.in_scope_total,
      'recall@1': report['recall@1'],
      'recall@5': report['recall@5'],
      'mrr@5': report['mrr@5'],
    });
    for (const kind of ['all', ...kinds]) {
      const figures = engines.map((engine) => {
        const report = ofSet.find((row) => row.engine === engine)?.report;
        return report ? (kind === 'all' ? all(report) : report.by_kind[kind]) : undefined;
      });
      const n = figures.find((entry) => entry !== undefined)?.questions ?? 0;
      lines.push(
        `| ${set} | ${first.role} | ${kind === 'all' ? '**all**' : kind} | ${n} | ${figures.flatMap((entry) => [cell(entry?.['recall@1']), cell(entry?.['recall@5']), cell(entry?.['mrr@5'])]).join(' | ')} |`,
      );
    }
    const scopes = engines.map((engine) => {
      const report = ofSet.find((row) => row.engine === engine)?.report;
      return report
        ? `${engine}: ${report.out_of_scope.rejected}/${report.out_of_scope.total} out of scope refused, ${report.in_scope_rejected}/${report.in_scope_total} in scope wrongly refused`
        : '';
    });
    lines.push(`| ${set} | ${first.role} | scope | | ${scopes.join('; ')} |${' |'.repeat(engines.length * 3 - 1)}`);
  }
  return lines.join('\n');
}
