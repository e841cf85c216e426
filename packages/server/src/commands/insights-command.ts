/**
 * `docs-chat insights [--since 7d] [--json|--csv]`: the insights report read
 * straight from the conversation store (DATABASE_URL, else PGlite under
 * DATA_DIR), without a running server. The same report as GET /admin/insights.
 */
import { parseArgs } from 'node:util';
import { isDocsChatError, loadCoreConfig, openRetrieval } from '@docs-chat/core';
import type { OpenedRetrieval } from '@docs-chat/core';
import { ConversationStoreUnavailableError } from '../conversations/conversation-store.js';
import { createConversationStore } from '../conversations/create-conversation-store.js';
import { buildInsightsReport, DEFAULT_PERIOD, parsePeriod, type InsightsReport } from '../insights/insights-report.js';

const USAGE = 'Usage: docs-chat insights [--since 7d] [--json | --csv]';

export async function runInsightsCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        since: { type: 'string', default: DEFAULT_PERIOD },
        json: { type: 'boolean', default: false },
        csv: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.json && values.csv) {
    process.stderr.write(`Choose one of --json and --csv.\n${USAGE}\n`);
    return 2;
  }
  const period = parsePeriod(values.since);
  if ('error' in period) {
    process.stderr.write(`--since: ${period.error}\n${USAGE}\n`);
    return 2;
  }
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/./.test(databaseUrl)) {
    process.stderr.write(
      'docs-chat insights: DATABASE_URL must be a postgres:// URL; leave it unset to read the embedded database under DATA_DIR.\n',
    );
    return 2;
  }
  try {
    const core = loadCoreConfig(env);
    // The index is optional: without it questions are grouped by exact text and gaps list no sections.
    let retrieval: OpenedRetrieval | undefined;
    try {
      retrieval = await openRetrieval(core);
    } catch (error) {
      if (!isDocsChatError(error)) throw error;
      process.stderr.write(
        `docs-chat insights: the index cannot be opened (${error.describe()}); questions are grouped by exact text and gaps list no closest sections.\n`,
      );
    }
    try {
      const store = await createConversationStore({ ...(databaseUrl ? { databaseUrl } : {}), dataDir: core.dataDir });
      try {
        await store.migrate();
        const report = await buildInsightsReport(
          { conversations: store, embedder: retrieval?.embedder, retriever: retrieval?.retriever },
          period,
        );
        if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else if (values.csv) process.stdout.write(formatInsightsCsv(report));
        else process.stdout.write(formatInsightsText(report));
        return 0;
      } finally {
        await store.close();
      }
    } finally {
      await retrieval?.close();
    }
  } catch (error) {
    if (error instanceof ConversationStoreUnavailableError) {
      process.stderr.write(`docs-chat insights: ${error.message}\n${error.hint}\n`);
      return 1;
    }
    if (isDocsChatError(error)) {
      process.stderr.write(`docs-chat insights: ${error.describe()}\n`);
      return 1;
    }
    throw error;
  }
}

/** The report for people: totals, then each list, most important first. */
export function formatInsightsText(report: InsightsReport): string {
  const { totals } = report;
  const lines = [`Insights for the last ${report.period} (${report.since} to ${report.until})`, ''];
  if (totals.questions === 0) {
    lines.push('No questions were asked in this period.', '');
    return lines.join('\n');
  }
  lines.push(
    `Questions: ${totals.questions}  answered ${totals.answered}  refused as out of scope ${totals.refused}  errors ${totals.errors}`,
    `Feedback: ${totals.thumbs_up} up, ${totals.thumbs_down} down`,
    '',
    'Questions per day (answered / refused / errors):',
    ...report.per_day.map(
      (day) => `  ${day.day}  ${String(day.questions).padStart(6)}  (${day.answered} / ${day.refused} / ${day.errors})`,
    ),
    '',
    `Most asked (grouped by ${report.grouping.method === 'embeddings' ? `meaning, cosine ≥ ${report.grouping.threshold}` : 'exact text'}):`,
    ...report.top_questions.map(
      (group, index) =>
        `  ${index + 1}. ${group.count}×  ${group.question}${group.variants.length > 0 ? `  (also: ${group.variants.join(' | ')})` : ''}`,
    ),
    '',
    'Coverage gaps (refused questions, with the sections that came closest):',
    ...(report.gaps.length === 0 ? ['  none'] : []),
    ...report.gaps.flatMap((gap, index) => [
      `  ${index + 1}. ${gap.count}×  ${gap.question}`,
      ...(gap.edit ? [`     edit: ${gap.edit.file ?? ''}  ${gap.edit.url}`] : []),
      ...gap.closest.map((section) => `     ~ ${section.title}${section.heading ? ` › ${section.heading}` : ''} (${section.score})`),
    ]),
    '',
    'Down-voted answers:',
    ...(report.down_voted.length === 0 ? ['  none'] : []),
    ...report.down_voted.flatMap((answer) => [
      `  Q: ${oneLine(answer.question ?? '(question not stored)')}`,
      `  A: ${oneLine(answer.answer).slice(0, 200)}`,
      ...(answer.reason ? [`  reason: ${oneLine(answer.reason)}`] : []),
      `  cited: ${answer.sources.map((source) => source.url).join(', ') || 'nothing'}`,
      '',
    ]),
    'Most cited pages:',
    ...report.pages.most_cited.map((page) => `  ${String(page.citations).padStart(6)}  ${page.title}  ${page.url}`),
    ...(report.pages.least_cited.length > 0
      ? [
          '',
          'Least cited pages:',
          ...report.pages.least_cited.map((page) => `  ${String(page.citations).padStart(6)}  ${page.title}  ${page.url}`),
        ]
      : []),
    '',
    'Highlight questions by page:',
    ...(report.selection_by_page.length === 0
      ? ['  none']
      : report.selection_by_page.map((page) => `  ${String(page.questions).padStart(6)}  ${page.url}`)),
    '',
  );
  return lines.join('\n');
}

const CSV_COLUMNS = ['section', 'label', 'count', 'answered', 'refused', 'errors', 'url', 'file'] as const;
type CsvRow = Partial<Record<(typeof CSV_COLUMNS)[number], string | number | null>>;

/** One table for spreadsheets: a `section` column says which list each row belongs to. */
export function formatInsightsCsv(report: InsightsReport): string {
  const rows: CsvRow[] = [
    ...report.per_day.map((day) => ({
      section: 'per_day',
      label: day.day,
      count: day.questions,
      answered: day.answered,
      refused: day.refused,
      errors: day.errors,
    })),
    ...report.top_questions.map((group) => ({ section: 'top_question', label: group.question, count: group.count })),
    ...report.gaps.map((gap) => ({
      section: 'gap',
      label: gap.question,
      count: gap.count,
      url: gap.edit?.url ?? null,
      file: gap.edit?.file ?? null,
    })),
    ...report.down_voted.map((answer) => ({
      section: 'down_voted',
      label: answer.question,
      url: answer.sources[0]?.url ?? null,
      file: answer.sources[0]?.file ?? null,
    })),
    ...report.pages.most_cited.map((page) => ({
      section: 'most_cited_page',
      label: page.title,
      count: page.citations,
      url: page.url,
      file: page.file,
    })),
    ...report.pages.least_cited.map((page) => ({
      section: 'least_cited_page',
      label: page.title,
      count: page.citations,
      url: page.url,
      file: page.file,
    })),
    ...report.selection_by_page.map((page) => ({ section: 'selection_page', label: page.title, count: page.questions, url: page.url })),
  ];
  const lines = [CSV_COLUMNS.join(','), ...rows.map((row) => CSV_COLUMNS.map((column) => csvField(row[column])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

// RFC 4180 quoting; a leading = + - @ is prefixed with ' so a spreadsheet never runs a reader's text as a formula.
function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
