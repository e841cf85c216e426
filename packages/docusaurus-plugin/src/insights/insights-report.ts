/**
 * The shape of `GET /admin/insights` as the insights page reads it (the server's
 * `InsightsReport`, restated here because the plugin ships to browsers and must not
 * import the server package).
 */
export interface InsightsSection {
  title: string;
  heading: string | null;
  url: string;
  file: string | null;
  score: number;
}

export interface InsightsPageCount {
  url: string;
  title: string;
  file: string | null;
  citations: number;
}

export interface InsightsReport {
  since: string;
  until: string;
  period: string;
  totals: { questions: number; answered: number; refused: number; errors: number; thumbs_up: number; thumbs_down: number };
  per_day: { day: string; questions: number; answered: number; refused: number; errors: number }[];
  top_questions: { question: string; count: number; variants: string[] }[];
  grouping: { method: 'embeddings' | 'exact_text'; threshold: number | null; texts_considered: number };
  gaps: {
    question: string;
    count: number;
    last_asked: string;
    closest: InsightsSection[];
    edit: { url: string; file: string | null } | null;
  }[];
  down_voted: { question: string | null; answer: string; reason: string | null; rated_at: string; sources: InsightsSection[] }[];
  pages: { most_cited: InsightsPageCount[]; least_cited: InsightsPageCount[]; cited_pages: number };
  selection_by_page: { url: string; title: string | null; questions: number }[];
  selection_without_page: number;
}

/** The periods offered on the page (the server accepts any from 1h to 365d). */
export const INSIGHTS_PERIODS = ['24h', '7d', '30d', '90d', '365d'] as const;
