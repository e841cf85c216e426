/**
 * One scrape for several server processes: what each process counted is added
 * up, and what describes the one index comes from the process that built it last.
 */
import { aggregateClusterMetrics } from './cluster-metrics.js';
import { INGEST_CHUNKS_METRIC, INGEST_LAST_SUCCESS_METRIC, ServerMetrics, type ProcessMetrics } from './server-metrics.js';

function processMetrics(): ServerMetrics {
  return new ServerMetrics({ modelProvider: 'gemini', storeBackend: 'postgres' });
}

/** The value of the sample of `name` with exactly these labels (none: the unlabelled one). */
function sample(text: string, name: string, labels = ''): number | undefined {
  const prefix = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

function withGauge(part: ProcessMetrics, name: string, value: number): ProcessMetrics {
  return part.map((metric) => (metric.name === name ? { ...metric, values: metric.values.map((entry) => ({ ...entry, value })) } : metric));
}

describe('the metrics of several server processes', () => {
  it('adds up requests, answers and latency histograms, and says how many processes it covers', async () => {
    const first = processMetrics();
    const second = processMetrics();
    first.observeRequest('GET', '/search', 200);
    first.observeRequest('GET', '/search', 200);
    second.observeRequest('GET', '/search', 200);
    second.observeRequest('POST', '/chat', 429);
    first.observeAnswer({ mode: 'general', durationMs: 900, firstTextMs: 40, retrievalMs: 20, outOfScope: false, finishReason: 'stop' });
    second.observeAnswer({ mode: 'general', durationMs: 1200, firstTextMs: 300, retrievalMs: 30, outOfScope: true, finishReason: 'stop' });

    const text = await aggregateClusterMetrics({ parts: [await first.snapshot(), await second.snapshot()], processes: 3 }).metrics();

    expect(sample(text, 'docs_chat_http_requests_total', 'method="GET",route="/search",status="200"')).toBe(3);
    expect(sample(text, 'docs_chat_http_requests_total', 'method="POST",route="/chat",status="429"')).toBe(1);
    expect(sample(text, 'docs_chat_rate_limited_requests_total', 'route="/chat"')).toBe(1);
    expect(sample(text, 'docs_chat_answers_total', 'outcome="answered"')).toBe(1);
    expect(sample(text, 'docs_chat_answers_total', 'outcome="out_of_scope"')).toBe(1);
    expect(sample(text, 'docs_chat_time_to_first_token_seconds_count', 'mode="general"')).toBe(2);
    expect(sample(text, 'docs_chat_time_to_first_token_seconds_bucket', 'le="0.05",mode="general"')).toBe(1);
    expect(sample(text, 'docs_chat_time_to_first_token_seconds_bucket', 'le="0.5",mode="general"')).toBe(2);
    // Process figures: memory is the sum of the processes'.
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // The start time is not summed into nonsense: it is the oldest process's (the stale-index alert reads it).
    const olderStart = sample(await first.registry.metrics(), 'process_start_time_seconds')!;
    const partsWithAYoungerProcess = [
      await first.snapshot(),
      withGauge(await second.snapshot(), 'process_start_time_seconds', olderStart + 600),
    ];
    expect(
      sample(await aggregateClusterMetrics({ parts: partsWithAYoungerProcess, processes: 2 }).metrics(), 'process_start_time_seconds'),
    ).toBe(olderStart);
    // Two of three processes answered: the scrape says so.
    expect(sample(text, 'docs_chat_server_processes')).toBe(3);
    expect(sample(text, 'docs_chat_server_processes_reporting')).toBe(2);
  });

  it('shows the chunk count of the process that ingested last, not a sum or the largest', async () => {
    const earlier = processMetrics();
    const later = processMetrics();
    const idle = processMetrics();
    earlier.observeIngest({ trigger: 'admin', outcome: 'success', durationMs: 5000, chunks: 900 });
    later.observeIngest({ trigger: 'admin', outcome: 'success', durationMs: 4000, chunks: 400 });
    const now = Math.round(Date.now() / 1000);
    const parts = [
      withGauge(await earlier.snapshot(), INGEST_LAST_SUCCESS_METRIC, now - 3600),
      await idle.snapshot(),
      withGauge(await later.snapshot(), INGEST_LAST_SUCCESS_METRIC, now),
    ];

    const text = await aggregateClusterMetrics({ parts, processes: 3 }).metrics();

    expect(sample(text, INGEST_CHUNKS_METRIC)).toBe(400);
    expect(sample(text, INGEST_LAST_SUCCESS_METRIC)).toBe(now);
    expect(sample(text, 'docs_chat_ingest_runs_total', 'trigger="admin",outcome="success"')).toBe(2);
  });
});
