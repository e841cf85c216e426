/**
 * The insights page for docs owners: asks for the server's admin token (kept in
 * sessionStorage only, so it is gone when the tab closes), reads
 * `GET /admin/insights` and shows questions per day as a stacked area chart,
 * the coverage gaps and most cited pages as bar charts, and the lists as tables.
 * Reached only through its own route (see `insights-route.tsx`), so neither
 * this code nor the chart library weighs on the widget of other pages.
 */
import React, { useCallback, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { QuestionsPerDayChart } from './QuestionsPerDayChart.js';
import { INSIGHTS_PERIODS, type InsightsReport } from './insights-report.js';
import styles from './insights.module.css';

/** Where the token is kept: this tab only. */
export const TOKEN_STORAGE_KEY = 'docs-chat:insights-token';

type LoadState = { kind: 'idle' } | { kind: 'loading' } | { kind: 'failed'; message: string } | { kind: 'loaded'; report: InsightsReport };

export interface InsightsPageProps {
  /** The docs-chat server, without a trailing slash. */
  serverUrl: string;
}

function readStoredToken(): string {
  try {
    return window.sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? '';
  } catch {
    return '';
  }
}

export function InsightsPage({ serverUrl }: InsightsPageProps): ReactNode {
  const [token, setToken] = useState(readStoredToken);
  const [draft, setDraft] = useState('');
  const [period, setPeriod] = useState<string>('7d');
  const [state, setState] = useState<LoadState>({ kind: 'idle' });

  const load = useCallback(
    async (signal: AbortSignal) => {
      setState({ kind: 'loading' });
      try {
        const response = await fetch(`${serverUrl}/admin/insights?since=${encodeURIComponent(period)}`, {
          headers: { authorization: `Bearer ${token}` },
          signal,
        });
        if (response.status === 401) {
          window.sessionStorage.removeItem(TOKEN_STORAGE_KEY);
          setToken('');
          setState({ kind: 'failed', message: 'The server refused this token. Enter the ADMIN_TOKEN set on the docs-chat server.' });
          return;
        }
        if (!response.ok) {
          const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
          setState({ kind: 'failed', message: body?.error?.message ?? `The server answered ${response.status}; try again shortly.` });
          return;
        }
        setState({ kind: 'loaded', report: (await response.json()) as InsightsReport });
      } catch (error) {
        if (signal.aborted) return;
        setState({
          kind: 'failed',
          message: `The docs-chat server at ${serverUrl} cannot be reached (${(error as Error).message}). Check that it runs and allows this site in CORS_ORIGINS.`,
        });
      }
    },
    [serverUrl, token, period],
  );

  useEffect(() => {
    if (!token) return undefined;
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [token, load]);

  const submitToken = (event: FormEvent): void => {
    event.preventDefault();
    const value = draft.trim();
    if (!value) return;
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, value);
    setDraft('');
    setToken(value);
  };

  const forget = (): void => {
    window.sessionStorage.removeItem(TOKEN_STORAGE_KEY);
    setToken('');
    setState({ kind: 'idle' });
  };

  return (
    <main className={styles.page}>
      <h1>Docs insights</h1>
      {!token ? (
        <form className={styles.tokenForm} onSubmit={submitToken}>
          <label htmlFor="docs-chat-insights-token">Admin token</label>
          <input
            id="docs-chat-insights-token"
            type="password"
            autoComplete="off"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            placeholder="ADMIN_TOKEN of the docs-chat server"
          />
          <button type="submit">Show insights</button>
          <p className={styles.note}>The token stays in this tab (sessionStorage) and is sent only to {serverUrl}.</p>
        </form>
      ) : (
        <div className={styles.toolbar}>
          <label htmlFor="docs-chat-insights-period">Period</label>
          <select id="docs-chat-insights-period" value={period} onChange={(event) => setPeriod(event.target.value)}>
            {INSIGHTS_PERIODS.map((value) => (
              <option key={value} value={value}>
                last {value}
              </option>
            ))}
          </select>
          <button type="button" onClick={forget}>
            Forget token
          </button>
        </div>
      )}
      {state.kind === 'loading' && <p role="status">Loading insights…</p>}
      {state.kind === 'failed' && <p role="alert">{state.message}</p>}
      {state.kind === 'loaded' && <InsightsReportView report={state.report} />}
    </main>
  );
}

export function InsightsReportView({ report }: { report: InsightsReport }): ReactNode {
  const { totals } = report;
  if (totals.questions === 0) {
    return (
      <p role="status" className={styles.empty}>
        No questions were asked in the last {report.period}. Once readers use the chat, what they ask shows here.
      </p>
    );
  }
  const topGaps = report.gaps.slice(0, 10);
  return (
    <>
      <ul className={styles.totals} aria-label="Totals">
        <li>
          <strong>{totals.questions}</strong> questions
        </li>
        <li>
          <strong>{totals.answered}</strong> answered
        </li>
        <li>
          <strong>{totals.refused}</strong> refused as out of scope
        </li>
        <li>
          <strong>{totals.errors}</strong> errors
        </li>
        <li>
          <strong>{totals.thumbs_up}</strong> thumbs up, <strong>{totals.thumbs_down}</strong> down
        </li>
      </ul>

      <section aria-labelledby="insights-per-day">
        <h2 id="insights-per-day">Questions per day</h2>
        <QuestionsPerDayChart days={report.per_day} />
      </section>

      <div className={styles.columns}>
        <section aria-labelledby="insights-gaps-chart">
          <h2 id="insights-gaps-chart">Top coverage gaps</h2>
          {topGaps.length === 0 ? (
            <p>No question was refused in this period.</p>
          ) : (
            <Bars items={topGaps.map((gap) => ({ label: gap.question, value: gap.count, href: gap.edit?.url }))} />
          )}
        </section>
        <section aria-labelledby="insights-cited-chart">
          <h2 id="insights-cited-chart">Most cited pages</h2>
          {report.pages.most_cited.length === 0 ? (
            <p>No answer cited a page in this period.</p>
          ) : (
            <Bars
              items={report.pages.most_cited.slice(0, 10).map((page) => ({ label: page.title, value: page.citations, href: page.url }))}
            />
          )}
        </section>
      </div>

      <section aria-labelledby="insights-gaps">
        <h2 id="insights-gaps">Unanswered questions (coverage gaps)</h2>
        <table className={styles.table}>
          <thead>
            <tr>
              <th scope="col">Question</th>
              <th scope="col">Times asked</th>
              <th scope="col">Closest sections</th>
              <th scope="col">Page to edit</th>
            </tr>
          </thead>
          <tbody>
            {report.gaps.map((gap) => (
              <tr key={gap.question}>
                <td>{gap.question}</td>
                <td>{gap.count}</td>
                <td>
                  {gap.closest.map((section) => (
                    <div key={section.url}>
                      <a href={section.url}>{section.heading ? `${section.title} › ${section.heading}` : section.title}</a>
                    </div>
                  ))}
                </td>
                <td>{gap.edit ? <a href={gap.edit.url}>{gap.edit.file ?? gap.edit.url}</a> : 'no close page'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="insights-top">
        <h2 id="insights-top">Most asked</h2>
        <p className={styles.note}>
          {report.grouping.method === 'embeddings'
            ? `Questions with the same meaning are merged (cosine ≥ ${report.grouping.threshold}).`
            : 'Identical questions are merged (no embedder was available to merge rephrasings).'}
        </p>
        <table className={styles.table}>
          <thead>
            <tr>
              <th scope="col">Question</th>
              <th scope="col">Times asked</th>
              <th scope="col">Also asked as</th>
            </tr>
          </thead>
          <tbody>
            {report.top_questions.map((group) => (
              <tr key={group.question}>
                <td>{group.question}</td>
                <td>{group.count}</td>
                <td>{group.variants.join(' · ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="insights-down">
        <h2 id="insights-down">Down-voted answers</h2>
        {report.down_voted.length === 0 ? (
          <p>No answer was voted down in this period.</p>
        ) : (
          <table className={styles.table}>
            <thead>
              <tr>
                <th scope="col">Question</th>
                <th scope="col">Answer</th>
                <th scope="col">Reason</th>
                <th scope="col">Cited</th>
              </tr>
            </thead>
            <tbody>
              {report.down_voted.map((answer) => (
                <tr key={`${answer.rated_at}-${answer.question ?? ''}`}>
                  <td>{answer.question ?? '(not stored)'}</td>
                  <td className={styles.answer}>{answer.answer}</td>
                  <td>{answer.reason ?? ''}</td>
                  <td>
                    {answer.sources.map((source) => (
                      <div key={source.url}>
                        <a href={source.url}>{source.title}</a>
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <div className={styles.columns}>
        <section aria-labelledby="insights-least">
          <h2 id="insights-least">Least cited pages</h2>
          <PageTable
            pages={report.pages.least_cited}
            empty={`Fewer than ${report.pages.most_cited.length + 1} pages were cited: see the most cited.`}
          />
        </section>
        <section aria-labelledby="insights-selection">
          <h2 id="insights-selection">Highlight-and-ask by page</h2>
          {report.selection_by_page.length === 0 ? (
            <p>Nobody asked about highlighted text in this period.</p>
          ) : (
            <table className={styles.table}>
              <thead>
                <tr>
                  <th scope="col">Page</th>
                  <th scope="col">Questions</th>
                </tr>
              </thead>
              <tbody>
                {report.selection_by_page.map((page) => (
                  <tr key={page.url}>
                    <td>
                      <a href={page.url}>{page.title ?? page.url}</a>
                    </td>
                    <td>{page.questions}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </>
  );
}

function PageTable({ pages, empty }: { pages: InsightsReport['pages']['least_cited']; empty: string }): ReactNode {
  if (pages.length === 0) return <p>{empty}</p>;
  return (
    <table className={styles.table}>
      <thead>
        <tr>
          <th scope="col">Page</th>
          <th scope="col">Citations</th>
        </tr>
      </thead>
      <tbody>
        {pages.map((page) => (
          <tr key={page.url}>
            <td>
              <a href={page.url}>{page.title}</a>
            </td>
            <td>{page.citations}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A horizontal bar chart in plain HTML: readable by screen readers, and no chart library needed for bars. */
function Bars({ items }: { items: { label: string; value: number; href?: string | undefined }[] }): ReactNode {
  const largest = Math.max(1, ...items.map((item) => item.value));
  return (
    <ol className={styles.bars}>
      {items.map((item) => (
        <li key={item.label}>
          <span className={styles.barLabel}>{item.href ? <a href={item.href}>{item.label}</a> : item.label}</span>
          <span className={styles.barTrack} aria-hidden="true">
            <span className={styles.bar} style={{ width: `${(item.value / largest) * 100}%` }} />
          </span>
          <span className={styles.barValue}>{item.value}</span>
        </li>
      ))}
    </ol>
  );
}
