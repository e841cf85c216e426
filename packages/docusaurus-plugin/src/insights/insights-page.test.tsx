import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { InsightsPage, TOKEN_STORAGE_KEY } from './InsightsPage.js';
import type { InsightsReport } from './insights-report.js';

// Recorded from the server's report builder by eval/src/insights-screenshot.ts.
const recorded = JSON.parse(readFileSync(new URL('./__fixtures__/insights-report.json', import.meta.url), 'utf8')) as InsightsReport;
const TOKEN = 'owner-token';

const empty: InsightsReport = {
  ...recorded,
  totals: { questions: 0, answered: 0, refused: 0, errors: 0, thumbs_up: 0, thumbs_down: 0 },
  per_day: recorded.per_day.map((day) => ({ ...day, questions: 0, answered: 0, refused: 0, errors: 0 })),
  top_questions: [],
  gaps: [],
  down_voted: [],
  pages: { most_cited: [], least_cited: [], cited_pages: 0 },
  selection_by_page: [],
  selection_without_page: 0,
};

// uPlot sizes its canvas for the screen's pixel ratio through matchMedia, which jsdom lacks.
// eslint-disable-next-line @typescript-eslint/unbound-method -- `??=` only tests whether jsdom has it
window.matchMedia ??= ((query: string) => ({
  matches: false,
  media: query,
  onchange: null,
  addListener: () => undefined,
  removeListener: () => undefined,
  addEventListener: () => undefined,
  removeEventListener: () => undefined,
  dispatchEvent: () => false,
})) as typeof window.matchMedia;

// jsdom has no 2D canvas; the chart needs one. This context accepts every drawing call and draws nothing,
// and records the text drawn so the axis labels can be checked.
const drawnText: string[] = [];
HTMLCanvasElement.prototype.getContext = function getContext() {
  return new Proxy<Record<string | symbol, unknown>>(
    {},
    {
      get(target, key) {
        if (key === 'measureText') return (text: string) => ({ width: text.length * 6 });
        if (key === 'fillText') return (text: string) => void drawnText.push(String(text));
        if (key in target) return target[key];
        return () => undefined;
      },
      set(target, key, value) {
        target[key] = value;
        return true;
      },
    },
  );
} as unknown as typeof HTMLCanvasElement.prototype.getContext;

// Paths are built with Path2D, which jsdom lacks too: a path that accepts every segment.
(globalThis as { Path2D?: unknown }).Path2D ??= class {
  constructor() {
    return new Proxy(this, { get: (target, key) => (key in target ? (target as Record<string | symbol, unknown>)[key] : () => undefined) });
  }
};

/** A docs-chat server answering GET /admin/insights with a recorded report, over real HTTP. */
let server: Server;
let serverUrl: string;
let answer: InsightsReport = recorded;
const requests: { url: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', authorization: request.headers.authorization });
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'unauthorized', message: 'Send the token.' } }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  window.sessionStorage.clear();
  requests.length = 0;
  answer = recorded;
});

describe('the insights page', () => {
  it('asks for the admin token, keeps it in sessionStorage only, and shows the report with its charts and tables', async () => {
    const user = userEvent.setup();
    render(<InsightsPage serverUrl={serverUrl} />);
    expect(requests).toHaveLength(0);
    await user.type(screen.getByLabelText('Admin token'), TOKEN);
    await user.click(screen.getByRole('button', { name: 'Show insights' }));

    const totals = await screen.findByRole('list', { name: 'Totals' });
    expect(totals.textContent).toContain(`${recorded.totals.questions} questions`);
    expect(totals.textContent).toContain(`${recorded.totals.refused} refused as out of scope`);
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBe(TOKEN);
    expect(window.localStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
    expect(requests[0]).toEqual({ url: '/admin/insights?since=7d', authorization: `Bearer ${TOKEN}` });

    // The questions-per-day chart draws on a canvas; its numbers are also in a table for screen readers.
    const chart = screen.getByTestId('questions-per-day-chart');
    await expect(within(chart).findAllByText((_, element) => element?.tagName === 'CANVAS')).resolves.not.toHaveLength(0);
    expect(screen.getByRole('table', { name: 'Questions per day' })).toBeTruthy();
    // The x axis is labelled with the report's days (month-day, UTC).
    const lastDay = recorded.per_day.at(-1)?.day.slice(5) ?? '';
    await waitFor(() => expect(drawnText).toContain(lastDay));

    // Each coverage gap links to the page a writer would edit.
    const gap = recorded.gaps[0];
    if (!gap?.edit) throw new Error('the recorded report has no gap with a page to edit');
    const gapsTable = screen.getByRole('heading', { name: 'Unanswered questions (coverage gaps)' }).parentElement as HTMLElement;
    const gapRow = within(gapsTable).getByRole('cell', { name: gap.question }).parentElement as HTMLElement;
    expect(
      within(gapRow)
        .getByRole('link', { name: gap.edit.file ?? gap.edit.url })
        .getAttribute('href'),
    ).toBe(gap.edit.url);

    const topGroup = recorded.top_questions[0];
    expect(screen.getByRole('cell', { name: topGroup?.question ?? '' })).toBeTruthy();
    const downVoted = recorded.down_voted[0];
    expect(screen.getAllByRole('cell', { name: downVoted?.question ?? '' }).length).toBeGreaterThan(0);
    const mostCited = recorded.pages.most_cited[0];
    const citedChart = screen.getByRole('heading', { name: 'Most cited pages' }).parentElement as HTMLElement;
    expect(
      within(citedChart)
        .getByRole('link', { name: mostCited?.title ?? '' })
        .getAttribute('href'),
    ).toBe(mostCited?.url);
    expect(screen.getByRole('link', { name: recorded.selection_by_page[0]?.title ?? '' })).toBeTruthy();
  });

  it('asks again for the period the owner picks', async () => {
    const user = userEvent.setup();
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, TOKEN);
    render(<InsightsPage serverUrl={serverUrl} />);
    await screen.findByRole('list', { name: 'Totals' });
    await user.selectOptions(screen.getByLabelText('Period'), '30d');
    await screen.findByRole('list', { name: 'Totals' });
    expect(requests.map((request) => request.url)).toContain('/admin/insights?since=30d');
  });

  it('shows an empty state, not an error, when nobody asked anything in the period', async () => {
    answer = empty;
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, TOKEN);
    render(<InsightsPage serverUrl={serverUrl} />);
    expect((await screen.findByText(/No questions were asked in the last 7d/)).getAttribute('role')).toBe('status');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByTestId('questions-per-day-chart')).toBeNull();
  });

  it('forgets a token the server refuses and says which token to enter', async () => {
    window.sessionStorage.setItem(TOKEN_STORAGE_KEY, 'stale-token');
    render(<InsightsPage serverUrl={serverUrl} />);
    expect((await screen.findByRole('alert')).textContent).toMatch(/ADMIN_TOKEN/);
    expect(window.sessionStorage.getItem(TOKEN_STORAGE_KEY)).toBeNull();
    expect(screen.getByLabelText('Admin token')).toBeTruthy();
  });
});
