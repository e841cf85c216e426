/**
 * The SQL behind the insights report (`GET /admin/insights`, `docs-chat insights`):
 * a handful of aggregates over one period, each bounded by a LIMIT so the
 * report costs the same on 1,000 or 1,000,000 stored questions, apart from the
 * scans of the period itself. Reads only; shared by Postgres and PGlite.
 *
 * A question and its answer are two rows of `messages` in one conversation: the
 * answer row carries the outcome (status, finish_reason, sources), the question
 * row the text, the mode and the page it was asked on. An answer's question is
 * the last question row before it in its conversation (`seq` order).
 *
 * No row id leaves this module: the report is shown to docs owners, and a
 * conversation id would let its holder read a reader's conversation.
 */
import type { SourceRef } from '@docs-chat/core/protocol';
import type { SqlClient } from './sql-client.js';

/** What to read: the period and how many rows each list may hold. */
export interface InsightsQuery {
  since: Date;
  /** Distinct question texts considered for "most asked" (they are then grouped by meaning). */
  topQuestionTexts: number;
  /** Distinct refused questions returned. */
  gaps: number;
  downVoted: number;
  /** Selection-mode pages returned. */
  selectionPages: number;
}

export interface DayCount {
  /** YYYY-MM-DD, UTC. */
  day: string;
  questions: number;
  answered: number;
  refused: number;
  errors: number;
}

export interface QuestionCount {
  /** One of the texts as a reader typed it. */
  text: string;
  count: number;
}

export interface RefusedQuestion extends QuestionCount {
  /** ISO 8601: the last time it was asked. */
  lastAsked: string;
}

export interface DownVotedAnswer {
  /** Null when the question row is missing (written by hand or by an older version). */
  question: string | null;
  answer: string;
  reason: string | null;
  sources: SourceRef[];
  /** ISO 8601. */
  ratedAt: string;
}

export interface PageCitations {
  /** The page URL without its heading anchor (a record's `record:<id>` when it has no URL). */
  url: string;
  title: string;
  file: string | null;
  citations: number;
}

export interface SelectionPage {
  url: string;
  title: string | null;
  questions: number;
}

/** The raw aggregates; `insights-report.ts` groups, ranks and searches them. */
export interface InsightsRows {
  perDay: DayCount[];
  thumbsUp: number;
  thumbsDown: number;
  topQuestions: QuestionCount[];
  refused: RefusedQuestion[];
  downVoted: DownVotedAnswer[];
  /** Every page cited in the period, most cited first (a site has hundreds of pages, not millions). */
  pages: PageCitations[];
  selectionPages: SelectionPage[];
  /** Selection-mode questions with no page recorded (asked before the page was stored). */
  selectionWithoutPage: number;
}

// Question texts are grouped the way a reader would not tell them apart: case and surrounding spaces.
const NORMALISED_QUESTION = 'lower(btrim(q.content))';

// The question an answer row `a` replies to.
const QUESTION_OF_ANSWER = `left join lateral (
    select q.content from messages q
     where q.conversation_id = a.conversation_id and q.role = 'user' and q.seq < a.seq
     order by q.seq desc limit 1
  ) q on true`;

function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

/** Runs the report's statements; on Postgres they run side by side on the pool, on PGlite one after the other. */
export async function readInsightsRows(client: SqlClient, query: InsightsQuery): Promise<InsightsRows> {
  const since = query.since.toISOString();
  const [perDay, feedback, topQuestions, refused, downVoted, pages, selection] = await Promise.all([
    client.query<{ day: string; questions: number; answered: number; refused: number; errors: number }>(
      // Grouped by the UTC date, formatted once per day (not per row).
      `select to_char(day, 'YYYY-MM-DD') as day, questions, answered, refused, errors from (
         select (created_at at time zone 'UTC')::date as day,
                count(*)::int as questions,
                (count(*) filter (where status = 'complete' and finish_reason is distinct from 'no_answer'))::int as answered,
                (count(*) filter (where finish_reason = 'no_answer'))::int as refused,
                (count(*) filter (where status = 'error'))::int as errors
           from messages
          where role = 'assistant' and created_at >= $1::timestamptz
          group by 1
       ) as days order by days.day`,
      [since],
    ),
    client.query<{ rating: 'up' | 'down'; count: number }>(
      // Ratings given in the period (a rating follows its answer within minutes): the small feedback table alone.
      `select rating, count(*)::int as count from feedback where updated_at >= $1::timestamptz group by rating`,
      [since],
    ),
    client.query<{ text: string; count: number }>(
      `select min(q.content) as text, count(*)::int as count
         from messages q
        where q.role = 'user' and q.mode = 'general' and q.created_at >= $1::timestamptz and btrim(q.content) <> ''
        group by ${NORMALISED_QUESTION}
        order by count desc, min(q.content)
        limit $2`,
      [since, query.topQuestionTexts],
    ),
    client.query<{ text: string; count: number; last_asked: Date | string }>(
      `select min(q.content) as text, count(*)::int as count, max(a.created_at) as last_asked
         from messages a ${QUESTION_OF_ANSWER}
        where a.role = 'assistant' and a.finish_reason = 'no_answer' and a.created_at >= $1::timestamptz and q.content is not null
        group by ${NORMALISED_QUESTION}
        order by count desc, last_asked desc
        limit $2`,
      [since, query.gaps],
    ),
    client.query<{ question: string | null; answer: string; reason: string | null; sources: unknown; rated_at: Date | string }>(
      `select q.content as question, a.content as answer, f.reason, a.sources, f.updated_at as rated_at
         from feedback f
         join messages a on a.id = f.message_id
         ${QUESTION_OF_ANSWER}
        where f.rating = 'down' and f.updated_at >= $1::timestamptz
        order by f.updated_at desc
        limit $2`,
      [since, query.downVoted],
    ),
    client.query<{ url: string; title: string | null; file: string | null; citations: number }>(
      `select coalesce(nullif(split_part(s.value ->> 'url', '#', 1), ''), 'record:' || coalesce(s.value ->> 'id', '?')) as url,
              min(s.value ->> 'title') as title, min(s.value ->> 'file') as file, count(*)::int as citations
         from messages a cross join lateral jsonb_array_elements(a.sources) as s(value)
        where a.role = 'assistant' and a.created_at >= $1::timestamptz and jsonb_typeof(a.sources) = 'array' and a.sources <> '[]'::jsonb
        group by 1
        order by citations desc, url`,
      [since],
    ),
    client.query<{ url: string | null; title: string | null; questions: number }>(
      // One read of the period's highlight questions, through their partial index: the pages most
      // highlighted, and the questions stored before the page was recorded (the null group, listed first).
      `select page_url as url, min(page_title) as title, count(*)::int as questions
         from messages
        where role = 'user' and mode = 'selection' and created_at >= $1::timestamptz
        group by page_url
        order by page_url is not null, questions desc, page_url
        limit $2`,
      [since, query.selectionPages + 1],
    ),
  ]);
  return {
    perDay: perDay.map((row) => ({
      day: row.day,
      questions: Number(row.questions),
      answered: Number(row.answered),
      refused: Number(row.refused),
      errors: Number(row.errors),
    })),
    thumbsUp: Number(feedback.find((row) => row.rating === 'up')?.count ?? 0),
    thumbsDown: Number(feedback.find((row) => row.rating === 'down')?.count ?? 0),
    topQuestions: topQuestions.map((row) => ({ text: row.text, count: Number(row.count) })),
    refused: refused.map((row) => ({ text: row.text, count: Number(row.count), lastAsked: toIso(row.last_asked) })),
    downVoted: downVoted.map((row) => ({
      question: row.question,
      answer: row.answer,
      reason: row.reason,
      sources: Array.isArray(row.sources) ? (row.sources as SourceRef[]) : [],
      ratedAt: toIso(row.rated_at),
    })),
    pages: pages.map((row) => ({ url: row.url, title: row.title ?? row.url, file: row.file, citations: Number(row.citations) })),
    selectionPages: selection
      .filter((row): row is typeof row & { url: string } => row.url !== null)
      .slice(0, query.selectionPages)
      .map((row) => ({ url: row.url, title: row.title, questions: Number(row.questions) })),
    selectionWithoutPage: Number(selection.find((row) => row.url === null)?.questions ?? 0),
  };
}
