/**
 * Questions per day as a stacked area chart (answered, refused, errors), drawn
 * with uPlot: 22 KB gzip, no dependencies, canvas based, so a year of days
 * draws in a millisecond. Chosen over Chart.js (about three times the size) for
 * a page that only needs one time series chart. The numbers are also in a
 * table under the chart for screen readers.
 */
import React, { useEffect, useRef, type ReactNode } from 'react';
import type { InsightsReport } from './insights-report.js';
import styles from './insights.module.css';

// Drawn in this order, each band over the previous one: the total first (its top is all questions), answered last.
const SERIES = [
  { key: 'errors', label: 'Errors', stroke: '#c0392b', fill: '#f2b8b0' },
  { key: 'refused', label: 'Refused (out of scope)', stroke: '#d9822b', fill: '#f7d3a8' },
  { key: 'answered', label: 'Answered', stroke: '#2e8555', fill: '#a9dcc0' },
] as const;
const STACK_ORDER = ['answered', 'refused', 'errors'] as const;
const DAY_SECONDS = 86_400;

export function QuestionsPerDayChart({ days }: { days: InsightsReport['per_day'] }): ReactNode {
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const target = container.current;
    if (!target) return undefined;
    // A browser without a 2D canvas (rare; some locked-down kiosks) keeps the table below instead.
    if (!document.createElement('canvas').getContext('2d')) {
      target.textContent = 'This browser cannot draw charts; the numbers are in the table below.';
      target.nextElementSibling?.nextElementSibling?.classList.remove(styles.visuallyHidden ?? '');
      return undefined;
    }
    let chart: { destroy(): void } | undefined;
    let cancelled = false;
    void import('uplot').then(({ default: UPlot }) => {
      if (cancelled) return;
      const x = days.map((day) => Date.parse(`${day.day}T00:00:00Z`) / 1000);
      // Stacked: answered at the bottom, then refused, then errors; each band's top is the running total.
      const totals = new Map<string, number[]>();
      let running = days.map(() => 0);
      for (const key of STACK_ORDER) {
        running = running.map((total, index) => total + (days[index]?.[key] ?? 0));
        totals.set(key, running);
      }
      const stacked = SERIES.map((series) => totals.get(series.key) ?? []);
      chart = new UPlot(
        {
          width: Math.max(320, target.clientWidth || 720),
          height: 260,
          series: [
            {},
            ...SERIES.map((series) => ({
              label: series.label,
              stroke: series.stroke,
              fill: series.fill,
              width: 1.5,
              // The legend shows the day's own count, not the stacked total.
              value: (_chart: unknown, _value: number, _series: number, index: number | null) =>
                index === null ? '' : String(days[index]?.[series.key] ?? 0),
            })),
          ],
          axes: [
            // Whole days only, in UTC like the report's days.
            {
              incrs: [DAY_SECONDS, 2 * DAY_SECONDS, 7 * DAY_SECONDS, 30 * DAY_SECONDS],
              values: (_chart: unknown, splits: number[]) => splits.map((split) => new Date(split * 1000).toISOString().slice(5, 10)),
            },
            { label: 'questions' },
          ],
          scales: { x: { time: true }, y: { range: (_chart: unknown, _min: number, max: number) => [0, Math.max(1, max)] } },
        },
        [x, ...stacked],
        target,
      );
    });
    return () => {
      cancelled = true;
      chart?.destroy();
    };
  }, [days]);

  return (
    <figure className={styles.chart}>
      <div ref={container} data-testid="questions-per-day-chart" />
      <figcaption className={styles.note}>
        Stacked: answered at the bottom, refused above, errors on top; the top line is all questions (days in UTC).
      </figcaption>
      <table className={styles.visuallyHidden}>
        <caption>Questions per day</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Questions</th>
            <th scope="col">Answered</th>
            <th scope="col">Refused</th>
            <th scope="col">Errors</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.day}>
              <td>{day.day}</td>
              <td>{day.questions}</td>
              <td>{day.answered}</td>
              <td>{day.refused}</td>
              <td>{day.errors}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
