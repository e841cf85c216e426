/**
 * The insights report for docs owners: what readers ask, what the docs could
 * not answer (and which sections came closest), which answers they voted
 * down, which pages answers cite. Built from the conversation store's
 * aggregates (`insights-queries.ts`), the configured embedder (questions that
 * mean the same are merged) and the retriever (the closest sections of each
 * refused question). Shared by `GET /admin/insights` and `docs-chat insights`.
 *
 * Bounded work whatever the size of the store: the SQL returns at most
 * TOP_QUESTION_TEXTS distinct texts to group and GAPS refused questions to
 * search, so the embedding and the retrieval cost the same on every call.
 */
import type { SourceRef } from '@docs-chat/core/protocol';
import type { ConversationStore } from '../conversations/conversation-store.js';
import type { InsightsRows } from '../conversations/insights-queries.js';
import type { Embedder, Retriever } from '../core-api.js';

/** Distinct question texts embedded and grouped for "most asked". */
export const TOP_QUESTION_TEXTS = 200;
/** Refused questions reported, each searched once. */
export const GAPS = 15;
export const DOWN_VOTED = 50;
export const SELECTION_PAGES = 30;
/** Pages listed as most and as least cited. */
export const PAGES_LISTED = 15;
/** Groups of questions listed as most asked. */
export const TOP_GROUPS = 20;
/** Closest sections shown under each refused question. */
export const CLOSEST_SECTIONS = 3;
/**
 * Two questions whose embeddings have at least this cosine are reported as one. Fitted by eye on the
 * demo docs with the neural embedder: rephrasings ("how do I install it" / "how to install") score
 * above 0.85, neighbouring topics ("install" / "upgrade") below.
 */
export const SAME_MEANING_COSINE = 0.85;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const MAX_PERIOD_MS = 365 * DAY_MS;

/** A period such as `7d` or `12h`: from 1 hour to 365 days. */
export interface InsightsPeriod {
  /** As given, e.g. `7d`. */
  label: string;
  milliseconds: number;
}

export const DEFAULT_PERIOD = '7d';

/** Parses `since`; returns a sentence that says what to send instead when it is not a valid period. */
export function parsePeriod(value: string | undefined): InsightsPeriod | { error: string } {
  const text = (value ?? DEFAULT_PERIOD).trim();
  const match = /^(\d{1,6})([hd])$/.exec(text);
  const problem = `"since" must be a period from 1h to 365d written as a number and h (hours) or d (days), e.g. 24h or 30d; got ${JSON.stringify(text.slice(0, 40))}.`;
  if (!match) return { error: problem };
  const amount = Number(match[1]);
  const milliseconds = amount * (match[2] === 'h' ? HOUR_MS : DAY_MS);
  if (amount < 1 || milliseconds > MAX_PERIOD_MS) return { error: problem };
  return { label: text, milliseconds };
}

export interface QuestionGroup {
  /** The most asked wording in the group. */
  question: string;
  count: number;
  /** Other wordings merged into it, most asked first (at most 5). */
  variants: string[];
}

export interface Section {
  title: string;
  heading: string | null;
  url: string;
  /** The docs file, relative to the docs folder, when the section comes from one. */
  file: string | null;
  score: number;
}

export interface CoverageGap {
  question: string;
  count: number;
  /** ISO 8601. */
  last_asked: string;
  /** The sections that came closest, best first: what a writer would extend. */
  closest: Section[];
  /** The page to edit: the closest section's page (URL without anchor) and its file. Null when nothing came close. */
  edit: { url: string; file: string | null } | null;
}

export interface InsightsReport {
  /** ISO 8601 bounds of the period. */
  since: string;
  until: string;
  period: string;
  totals: {
    questions: number;
    answered: number;
    /** Refused as out of scope (the docs do not cover the question). */
    refused: number;
    errors: number;
    thumbs_up: number;
    thumbs_down: number;
  };
  /** Every day of the period, oldest first, zeros included. */
  per_day: { day: string; questions: number; answered: number; refused: number; errors: number }[];
  top_questions: QuestionGroup[];
  /** How `top_questions` were grouped: by embeddings, or by exact text when no embedder is available. */
  grouping: { method: 'embeddings' | 'exact_text'; threshold: number | null; texts_considered: number };
  gaps: CoverageGap[];
  down_voted: { question: string | null; answer: string; reason: string | null; rated_at: string; sources: Section[] }[];
  pages: { most_cited: PageCount[]; least_cited: PageCount[]; cited_pages: number };
  selection_by_page: { url: string; title: string | null; questions: number }[];
  /** Selection-mode questions stored before the page was recorded. */
  selection_without_page: number;
}

export interface PageCount {
  url: string;
  title: string;
  file: string | null;
  citations: number;
}

export interface InsightsSources {
  conversations: Pick<ConversationStore, 'readInsights'>;
  /** Merges questions that mean the same; without it identical texts (case and spaces aside) are merged. */
  embedder?: Pick<Embedder, 'embed' | 'maxBatchSize'> | undefined;
  /** Finds the closest sections of refused questions; without it gaps list no sections. */
  retriever?: Pick<Retriever, 'search'> | undefined;
  /** Keeps question vectors between reports (the most asked questions change slowly); a server keeps one. */
  embeddingCache?: QuestionEmbeddingCache | undefined;
  now?: () => Date;
}

/**
 * Question vectors by text, so a dashboard refreshed every minute embeds only the questions that are new
 * since the last report (with the neural embedder, 200 questions cost seconds of CPU; cached, nothing).
 * Bounded: the oldest entries leave first. Emptied when the embedder changes (a re-ingest with another model).
 */
export class QuestionEmbeddingCache {
  readonly #vectors = new Map<string, Float32Array>();
  #owner: unknown;

  constructor(private readonly capacity = 5000) {}

  /** The cached vectors of `texts` for this embedder (undefined where missing). */
  lookup(embedder: unknown, texts: string[]): (Float32Array | undefined)[] {
    if (embedder !== this.#owner) {
      this.#vectors.clear();
      this.#owner = embedder;
    }
    return texts.map((text) => this.#vectors.get(text));
  }

  store(text: string, vector: Float32Array): void {
    this.#vectors.delete(text);
    this.#vectors.set(text, vector);
    while (this.#vectors.size > this.capacity) {
      const oldest = this.#vectors.keys().next().value;
      if (oldest === undefined) break;
      this.#vectors.delete(oldest);
    }
  }
}

export async function buildInsightsReport(sources: InsightsSources, period: InsightsPeriod, signal?: AbortSignal): Promise<InsightsReport> {
  const until = sources.now?.() ?? new Date();
  const since = new Date(until.getTime() - period.milliseconds);
  const rows = await sources.conversations.readInsights({
    since,
    topQuestionTexts: TOP_QUESTION_TEXTS,
    gaps: GAPS,
    downVoted: DOWN_VOTED,
    selectionPages: SELECTION_PAGES,
  });
  const [grouped, gaps] = await Promise.all([
    groupQuestions(rows.topQuestions, sources.embedder, signal, sources.embeddingCache),
    coverageGaps(rows.refused, sources.retriever, signal),
  ]);
  const perDay = everyDay(since, until, rows.perDay);
  const sum = (key: 'questions' | 'answered' | 'refused' | 'errors'): number => perDay.reduce((total, day) => total + day[key], 0);
  return {
    since: since.toISOString(),
    until: until.toISOString(),
    period: period.label,
    totals: {
      questions: sum('questions'),
      answered: sum('answered'),
      refused: sum('refused'),
      errors: sum('errors'),
      thumbs_up: rows.thumbsUp,
      thumbs_down: rows.thumbsDown,
    },
    per_day: perDay,
    top_questions: grouped.groups.slice(0, TOP_GROUPS),
    grouping: grouped.grouping,
    gaps,
    down_voted: rows.downVoted.map((answer) => ({
      question: answer.question,
      answer: answer.answer,
      reason: answer.reason,
      rated_at: answer.ratedAt,
      sources: answer.sources.map(sectionOfSource),
    })),
    pages: {
      most_cited: rows.pages.slice(0, PAGES_LISTED),
      // Least cited first; a page cited by few answers is either niche or hard to find.
      least_cited: rows.pages.length > PAGES_LISTED ? rows.pages.slice(-PAGES_LISTED).reverse() : [],
      cited_pages: rows.pages.length,
    },
    selection_by_page: rows.selectionPages,
    selection_without_page: rows.selectionWithoutPage,
  };
}

/** The period's days in UTC, with the stored counts and zeros for quiet days, so charts show the gaps. */
function everyDay(since: Date, until: Date, counted: InsightsRows['perDay']): InsightsReport['per_day'] {
  const byDay = new Map(counted.map((day) => [day.day, day]));
  const days: InsightsReport['per_day'] = [];
  const first = Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate());
  for (let time = first; time <= until.getTime(); time += DAY_MS) {
    const day = new Date(time).toISOString().slice(0, 10);
    const found = byDay.get(day);
    days.push({
      day,
      questions: found?.questions ?? 0,
      answered: found?.answered ?? 0,
      refused: found?.refused ?? 0,
      errors: found?.errors ?? 0,
    });
  }
  return days;
}

/**
 * Greedy grouping: texts are taken most asked first; each joins the first group whose leading text is at
 * least SAME_MEANING_COSINE away, or opens a new group. At most TOP_QUESTION_TEXTS² / 2 dot products
 * (20,000 for 200 texts, a few milliseconds), so it runs inline rather than on a worker thread.
 */
export async function groupQuestions(
  texts: { text: string; count: number }[],
  embedder: InsightsSources['embedder'],
  signal?: AbortSignal,
  cache: QuestionEmbeddingCache = new QuestionEmbeddingCache(),
): Promise<{ groups: QuestionGroup[]; grouping: InsightsReport['grouping'] }> {
  if (!embedder || texts.length === 0) {
    return {
      groups: texts.map((entry) => ({ question: entry.text, count: entry.count, variants: [] })),
      grouping: {
        method: embedder ? 'embeddings' : 'exact_text',
        threshold: embedder ? SAME_MEANING_COSINE : null,
        texts_considered: texts.length,
      },
    };
  }
  const wanted = texts.map((entry) => entry.text.slice(0, 2000));
  const vectors = cache.lookup(embedder, wanted);
  const missing = wanted.filter((_, index) => vectors[index] === undefined);
  const fresh = new Map<string, Float32Array>();
  const batch = Math.max(1, embedder.maxBatchSize);
  for (let start = 0; start < missing.length; start += batch) {
    const slice = missing.slice(start, start + batch);
    const embedded = await embedder.embed({ texts: slice, task: 'query', ...(signal ? { signal } : {}) });
    slice.forEach((text, index) => {
      const vector = embedded[index];
      if (!vector) return;
      fresh.set(text, vector);
      cache.store(text, vector);
    });
  }
  wanted.forEach((text, index) => {
    vectors[index] ??= fresh.get(text);
  });
  const groups: { lead: Float32Array; group: QuestionGroup; wordings: { text: string; count: number }[] }[] = [];
  texts.forEach((entry, index) => {
    const vector = vectors[index];
    if (!vector) return;
    const home = groups.find((candidate) => cosine(candidate.lead, vector) >= SAME_MEANING_COSINE);
    if (home) {
      home.group.count += entry.count;
      home.wordings.push(entry);
    } else {
      groups.push({ lead: vector, group: { question: entry.text, count: entry.count, variants: [] }, wordings: [] });
    }
  });
  for (const { group, wordings } of groups) group.variants = wordings.slice(0, 5).map((wording) => wording.text);
  return {
    groups: groups.map((entry) => entry.group).sort((a, b) => b.count - a.count),
    grouping: { method: 'embeddings', threshold: SAME_MEANING_COSINE, texts_considered: texts.length },
  };
}

// Vectors are L2-normalised (the Embedder contract), so the dot product is the cosine.
function cosine(a: Float32Array, b: Float32Array): number {
  const length = Math.min(a.length, b.length);
  let dot = 0;
  for (let index = 0; index < length; index += 1) dot += (a[index] ?? 0) * (b[index] ?? 0);
  return dot;
}

async function coverageGaps(
  refused: InsightsRows['refused'],
  retriever: InsightsSources['retriever'],
  signal?: AbortSignal,
): Promise<CoverageGap[]> {
  return Promise.all(
    refused.map(async (entry) => {
      let closest: Section[] = [];
      if (retriever) {
        try {
          const response = await retriever.search(entry.text.slice(0, 2000), { k: CLOSEST_SECTIONS, ...(signal ? { signal } : {}) });
          closest = response.hits.map((hit) => ({
            title: hit.chunk.title,
            heading: hit.chunk.headingPath.at(-1) ?? null,
            url: hit.chunk.url,
            file: hit.chunk.file || null,
            score: Number(hit.score.toFixed(4)),
          }));
        } catch {
          // A question the retriever refuses (too long, nothing but punctuation) still counts as a gap.
          closest = [];
        }
      }
      const best = closest[0];
      return {
        question: entry.text,
        count: entry.count,
        last_asked: entry.lastAsked,
        closest,
        edit: best ? { url: best.url.split('#')[0] ?? best.url, file: best.file } : null,
      };
    }),
  );
}

function sectionOfSource(source: SourceRef): Section {
  return {
    title: source.title,
    heading: source.heading,
    url: source.url,
    file: source.file || null,
    score: source.score,
  };
}
