/**
 * What no-key readers read (not a test): `node --import tsx eval/src/extractive-answers.ts --docs DIR --questions FILE
 * [--out FILE] [--baseline FILE] [--show ID,ID]`.
 *
 * Ingests DIR with the offline defaults into a temporary DATA_DIR, starts the real server with the extractive
 * model (no key), asks every in-scope question through `POST /chat` and reports, by the kind of answer the model
 * reads the question as asking for (how-to, troubleshooting, concept): the share of each question's
 * `answer_keywords` found in its answer, the share of answers holding at least half of them, the share whose first
 * cited source (the quoted section) is an expected section, and the answers' length (a longer answer finds more
 * keywords by itself, so both are shown). `--out` saves the
 * answers as JSON; `--baseline` compares with answers saved earlier (e.g. by the previous commit).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadCoreConfig, runIngest } from '@docs-chat/core';
import { citedNumbers, classifyQuestion, loadConfig, startServer, type QuestionIntent } from '@docs-chat/server';
import { matchesAny } from './hit-matching.js';
import { readQuestionSet, type ExpectedSection, type GoldenQuestion } from './question-set.js';

const USAGE =
  'Usage: node --import tsx eval/src/extractive-answers.ts --docs DIR --questions FILE [--out FILE] [--baseline FILE] [--show ID,ID]';

/** One asked question and what the reader got. */
export interface ExtractiveAnswer {
  id: string;
  question: string;
  /** The question set's own kind (paraphrase, howto, ...). */
  kind: string | null;
  keywords: string[];
  answer: string;
  /** The sources the answer cites, in order of first citation. */
  cited: { file: string; headingPath: string[] }[];
  expected: ExpectedSection[];
}

/** Whether a keyword appears in the answer, ignoring case, markup and line breaks. */
export function answerHoldsKeyword(answer: string, keyword: string): boolean {
  const plain = (text: string): string => text.toLowerCase().replace(/[`*_]/g, '').replace(/\s+/g, ' ');
  return plain(answer).includes(plain(keyword));
}

/** The cited sources whose text the answer quotes: those cited before its "See also" line. */
function quotedSources<T>(answer: string, cited: T[]): T[] {
  // The server returns the cited sources in order of first citation, read as citedNumbers reads them.
  const numbers = citedNumbers(answer);
  const quoted = new Set(citedNumbers(answer.split(/\n\nSee also /)[0] ?? ''));
  return cited.filter((_, index) => quoted.has(numbers[index] ?? -1));
}

/** Whether a source the answer quotes is one of the question's expected sections (a page's opening has only the title in its path; a cited source carries no text, so its heading path decides). */
function quotesExpectedSection(entry: ExtractiveAnswer): boolean {
  return quotedSources(entry.answer, entry.cited).some((source) =>
    matchesAny({ ...source, depth: source.headingPath.length, text: '' }, entry.expected),
  );
}

interface Summary {
  answers: number;
  keywordShare: number;
  halfOrMore: number;
  meanChars: number;
  expectedSection: number;
}

function summarise(answers: ExtractiveAnswer[]): Summary {
  const shares = answers.map(
    (entry) => entry.keywords.filter((keyword) => answerHoldsKeyword(entry.answer, keyword)).length / Math.max(1, entry.keywords.length),
  );
  const mean = (values: number[]): number => (values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length);
  return {
    answers: answers.length,
    keywordShare: mean(shares),
    halfOrMore: mean(shares.map((share) => (share >= 0.5 ? 1 : 0))),
    meanChars: mean(answers.map((entry) => entry.answer.length)),
    expectedSection: mean(answers.map((entry) => (quotesExpectedSection(entry) ? 1 : 0))),
  };
}

function formatSummary(label: string, summary: Summary): string {
  return `${label.padEnd(16)} ${String(summary.answers).padStart(3)}   ${summary.keywordShare.toFixed(2)}           ${summary.halfOrMore.toFixed(2)}          ${summary.expectedSection.toFixed(2)}                ${Math.round(summary.meanChars)}`;
}

function report(title: string, answers: ExtractiveAnswer[]): string {
  const intents: QuestionIntent[] = ['how-to', 'troubleshooting', 'concept'];
  return [
    title,
    'questions          n    keyword share  half or more  expected section  mean chars',
    ...intents.map((intent) => formatSummary(intent, summarise(answers.filter((entry) => classifyQuestion(entry.question) === intent)))),
    formatSummary('all in scope', summarise(answers)),
  ].join('\n');
}

async function askAll(docsDir: string, questions: GoldenQuestion[]): Promise<ExtractiveAnswer[]> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-extractive-'));
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: dataDir,
    VECTOR_STORE: 'embedded',
    EMBEDDING_PROVIDER: 'local',
    LLM_PROVIDER: 'extractive',
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_MAX: '100000',
    LOG_LEVEL: 'warn',
  };
  try {
    await runIngest(loadCoreConfig(env), { docsDir, rebuild: true });
    const server = await startServer(loadConfig(env), { logDestination: { write: () => undefined } });
    try {
      const answers: ExtractiveAnswer[] = [];
      for (const question of questions.filter((candidate) => candidate.in_scope)) {
        const response = await fetch(`${server.url}/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ message: question.question, mode: 'general' }),
        });
        const body = (await response.json()) as { answer?: string; sources?: { file: string; headingPath: string[] }[] };
        const cited = (body.sources ?? []).map(({ file, headingPath }) => ({ file, headingPath }));
        answers.push({
          id: question.id,
          question: question.question,
          kind: question.kind ?? null,
          keywords: question.answer_keywords ?? [],
          answer: body.answer ?? `(HTTP ${response.status})`,
          cited,
          expected: question.expected,
        });
      }
      return answers;
    } finally {
      await server.close();
    }
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        docs: { type: 'string' },
        questions: { type: 'string' },
        out: { type: 'string' },
        baseline: { type: 'string' },
        show: { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!values.docs || !values.questions) {
    process.stderr.write(`Both --docs and --questions are required.\n${USAGE}\n`);
    return 2;
  }
  const answers = await askAll(path.resolve(values.docs), await readQuestionSet(path.resolve(values.questions)));
  if (values.out) await fs.writeFile(values.out, `${JSON.stringify(answers, null, 2)}\n`);
  const sections = [report('Now', answers)];
  if (values.baseline) {
    const baseline = JSON.parse(await fs.readFile(values.baseline, 'utf8')) as ExtractiveAnswer[];
    sections.unshift(report(`Baseline (${values.baseline})`, baseline));
  }
  for (const id of values.show?.split(',') ?? []) {
    const entry = answers.find((candidate) => candidate.id === id.trim());
    if (entry) sections.push(`--- ${entry.id}: ${entry.question}\n${entry.answer}`);
  }
  process.stdout.write(`${sections.join('\n\n')}\n`);
  return 0;
}

process.exitCode = await main();
