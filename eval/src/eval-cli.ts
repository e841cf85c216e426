/**
 * `pnpm eval --docs DIR --questions FILE [--k 5] [--json] [--engine ours|static|lunr|both|all] [--cache-dir DIR]`
 * `pnpm eval --set redux|typescript-eslint|docs-site|zustand|fastify|...|dev|test|all [--engine ...]`
 * `pnpm eval --engine static|lunr --build SITE_BUILD_DIR --questions FILE`
 *
 * Engines:
 * - `ours` (alias `server`): indexes the docs into a temporary embedded store with
 *   the configured embedder (the offline no-key default unless EMBEDDING_PROVIDER
 *   says otherwise) and scores the server's retriever;
 * - `static`: the plugin's in-browser search over the static index of the same docs;
 * - `lunr`: the baseline, lunr over the same heading sections (as docusaurus-search-local).
 * `both` runs ours and lunr, `all` runs the three; several engines or sets print one
 * table side by side. Figures: recall@1/@5 and MRR@5 overall and by question kind,
 * and the out-of-scope figures. `--set dev` runs every dev set; `--set all` adds the
 * frozen test set (see question-sets.ts). `--build` reads the index the plugin wrote
 * into a site build instead of markdown. `--cache-dir` keeps document embeddings
 * between runs (the neural embedder takes about a minute per corpus the first time).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isDocsChatError, loadCoreConfig, openRetrieval, runIngest } from '@docs-chat/core';
import { readQuestionSet } from './question-set.js';
import { evaluateRetriever, formatComparison, formatEvaluation, type EvaluationReport } from './evaluate.js';
import { evaluateInBrowserEngine, type SectionSource } from './engines/in-browser-evaluation.js';
import { QUESTION_SETS, questionSet, type QuestionSetEntry } from './question-sets.js';
import { describeUnmatched, unmatchedExpectations, type UnmatchedExpectation } from './hit-matching.js';
import { loadMarkdownCorpus } from './engines/markdown-corpus.js';

const ENGINE_CHOICES = 'ours|static|lunr|both|all';
const USAGE =
  `Usage: pnpm eval --docs DIR --questions FILE [--k 5] [--json] [--engine ${ENGINE_CHOICES}] [--cache-dir DIR]\n` +
  `       pnpm eval --set ${QUESTION_SETS.map((set) => set.name).join('|')}|dev|test|all [--engine ${ENGINE_CHOICES}] [--json] [--cache-dir DIR]\n` +
  '       pnpm eval --engine static|lunr --build SITE_BUILD_DIR --questions FILE (the index the plugin wrote into a site build)';

type Engine = 'ours' | 'static' | 'lunr';

function enginesFor(choice: string): Engine[] | null {
  switch (choice) {
    case 'ours':
    case 'server':
      return ['ours'];
    case 'static':
    case 'lunr':
      return [choice];
    case 'both':
      return ['ours', 'lunr'];
    case 'all':
      return ['ours', 'static', 'lunr'];
    default:
      return null;
  }
}

async function evaluateOurs(
  docs: string,
  questionsFile: string,
  k: number,
  cacheDir: string | undefined,
): Promise<{ report: EvaluationReport; summary: string }> {
  const questions = await readQuestionSet(questionsFile);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-eval-'));
  try {
    // A throwaway embedded index: the evaluation never touches the real one.
    const env = { ...process.env, DATA_DIR: dataDir, VECTOR_STORE: 'embedded', QDRANT_URL: '' };
    const config = loadCoreConfig(env);
    const ingest = await runIngest(config, { docsDir: docs, rebuild: true, ...(cacheDir ? { embeddingCacheDir: cacheDir } : {}) });
    const retrieval = await openRetrieval(config);
    try {
      const report = await evaluateRetriever(retrieval.retriever, questions, k);
      return {
        report,
        summary: `Indexed ${ingest.files.total} files into ${ingest.chunks.total} chunks in ${(ingest.durationMs / 1000).toFixed(1)} s with ${ingest.embedder.provider}/${ingest.embedder.model}.`,
      };
    } finally {
      await retrieval.close();
    }
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Expected sections of the set that no section of its markdown can match (a misspelt heading, a renamed
 * page, docs that changed since the questions were written), each printed with what to fix: such a
 * question can never count as found. Nothing to check for a site build's index or a missing folder
 * (the engine then says what is wrong).
 */
async function checkExpectations(set: QuestionSetEntry & { build?: string }): Promise<UnmatchedExpectation[]> {
  if (set.build || !set.docs) return [];
  let chunks;
  try {
    chunks = (await loadMarkdownCorpus(set.docs)).chunks;
  } catch {
    return [];
  }
  const unmatched = unmatchedExpectations(await readQuestionSet(set.questions), chunks);
  for (const entry of unmatched) process.stderr.write(`eval: ${set.name}: ${describeUnmatched(entry, set.docs)}\n`);
  return unmatched;
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        docs: { type: 'string' },
        questions: { type: 'string' },
        set: { type: 'string' },
        build: { type: 'string' },
        engine: { type: 'string', default: 'ours' },
        k: { type: 'string', default: '5' },
        json: { type: 'boolean', default: false },
        'cache-dir': { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const k = Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 50) {
    process.stderr.write(`--k must be a whole number from 1 to 50.\n${USAGE}\n`);
    return 2;
  }
  const engines = enginesFor(values.engine ?? 'ours');
  if (engines === null) {
    process.stderr.write(`--engine must be one of ${ENGINE_CHOICES.split('|').join(', ')}.\n${USAGE}\n`);
    return 2;
  }
  if (values.build && engines.includes('ours')) {
    process.stderr.write(
      `--build reads the static index of a site build: use --engine static or lunr with it (the server engine indexes markdown, pass --docs).\n${USAGE}\n`,
    );
    return 2;
  }
  let sets: (QuestionSetEntry & { build?: string })[];
  if (values.set) {
    try {
      sets =
        values.set === 'all'
          ? [...QUESTION_SETS]
          : values.set === 'dev' || values.set === 'test'
            ? QUESTION_SETS.filter((set) => set.role === values.set)
            : [questionSet(values.set)];
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
      return 2;
    }
  } else if ((values.docs || values.build) && values.questions) {
    sets = [
      {
        name: path.basename(values.questions).replace(/\.questions\.json$|\.json$/, ''),
        role: 'dev',
        docs: values.docs ? path.resolve(values.docs) : '',
        questions: path.resolve(values.questions),
        ...(values.build ? { build: path.resolve(values.build) } : {}),
      },
    ];
  } else {
    process.stderr.write(`Pass --set, or --questions with --docs (or, for the static and lunr engines, --build).\n${USAGE}\n`);
    return 2;
  }
  const cacheDir = values['cache-dir'] ? path.resolve(values['cache-dir']) : undefined;

  try {
    const rows: { set: string; role: string; engine: Engine; report: EvaluationReport }[] = [];
    for (const set of sets) {
      const unmatched = await checkExpectations(set);
      for (const engine of engines) {
        let result: { report: EvaluationReport; summary: string };
        if (engine === 'ours') {
          result = await evaluateOurs(set.docs, set.questions, k, cacheDir);
        } else {
          const source: SectionSource = set.build ? { buildDir: set.build } : { docsDir: set.docs };
          try {
            result = await evaluateInBrowserEngine(engine, source, await readQuestionSet(set.questions), k);
          } catch (error) {
            // A missing or damaged index, or a docs folder that does not exist: the message says what to pass instead.
            process.stderr.write(`eval: ${error instanceof Error ? error.message : String(error)}\n`);
            return 1;
          }
        }
        const { summary } = result;
        const report = unmatched.length > 0 ? { ...result.report, unmatched_expected: unmatched } : result.report;
        rows.push({ set: set.name, role: set.role, engine, report });
        if (!values.json && sets.length === 1 && engines.length === 1) {
          process.stdout.write(`${summary}\n\n${formatEvaluation(report)}\n`);
          return 0;
        }
        if (!values.json) {
          process.stderr.write(
            `${set.name} (${set.role}), ${engine}: ${summary} recall@5 ${report['recall@5']}, MRR@5 ${report['mrr@5']}, out of scope refused ${report.out_of_scope.rejected}/${report.out_of_scope.total}, in scope wrongly refused ${report.in_scope_rejected}/${report.in_scope_total}\n`,
          );
        }
      }
    }
    if (values.json) {
      const output = rows.length === 1 ? { engine: rows[0]?.engine, ...(rows[0] as (typeof rows)[number]).report } : rows;
      process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    } else {
      process.stdout.write(`${formatComparison(rows)}\n`);
    }
    return 0;
  } catch (error) {
    if (isDocsChatError(error)) {
      process.stderr.write(`eval: ${error.describe()}\n`);
      return 1;
    }
    throw error;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`eval: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
