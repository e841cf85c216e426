/**
 * What operators scrape from `GET /metrics`, in Prometheus text format, through
 * prom-client (the library Prometheus' own docs point Node users to, rather
 * than hand-written exposition). One registry per server, not prom-client's
 * global one, so several apps in one process (tests, benchmarks) never mix.
 *
 * Labels hold only small fixed sets (route templates, status codes, providers,
 * error codes): never a conversation, message or share id, nor any text.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, type MetricObjectWithValues, type MetricValue, Registry } from 'prom-client';

/** One process's metrics, as `registry.getMetricsAsJSON()` gives them (plain data, sent over the cluster's IPC channel). */
export type ProcessMetrics = MetricObjectWithValues<MetricValue<string>>[];

/** Seconds; from a cached retrieval (a few ms) to a slow model (a minute). */
const LATENCY_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
const INGEST_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

export const INGEST_CHUNKS_METRIC = 'docs_chat_ingest_chunks';
export const INGEST_LAST_SUCCESS_METRIC = 'docs_chat_ingest_last_success_timestamp_seconds';

/** One finished answer, as the chat route reports it. */
export interface AnswerObservation {
  mode: string;
  durationMs: number;
  retrievalMs?: number;
  firstTextMs?: number;
  outOfScope?: boolean;
  finishReason?: string;
  modelError?: string;
}

export interface IngestObservation {
  trigger: 'admin' | 'git';
  outcome: 'success' | 'failure';
  durationMs: number;
  /** Chunks in the index after the run, when it succeeded. */
  chunks?: number;
}

export class ServerMetrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({
    name: 'docs_chat_http_requests_total',
    help: 'HTTP requests by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly #rateLimited = new Counter({
    name: 'docs_chat_rate_limited_requests_total',
    help: 'Requests refused with 429 by the per-reader rate limit, by route template.',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  readonly #timeToFirstToken = new Histogram({
    name: 'docs_chat_time_to_first_token_seconds',
    help: "Time from the start of an answer to the model's first text.",
    labelNames: ['mode'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #retrieval = new Histogram({
    name: 'docs_chat_retrieval_seconds',
    help: 'Time spent searching the docs for a general question.',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #answer = new Histogram({
    name: 'docs_chat_answer_seconds',
    help: 'Total time of an answer, from the request to the last event, by finish reason.',
    labelNames: ['mode', 'finish_reason'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly #answers = new Counter({
    name: 'docs_chat_answers_total',
    help: 'General questions by outcome: answered from the docs, or refused as out of scope.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly #modelErrors = new Counter({
    name: 'docs_chat_model_errors_total',
    help: 'Answers the chat model failed, after retries, by provider and error code.',
    labelNames: ['provider', 'code'] as const,
    registers: [this.registry],
  });
  readonly #modelRetries = new Counter({
    name: 'docs_chat_model_retries_total',
    help: 'Calls to the chat model retried after a retryable failure, by provider and error code.',
    labelNames: ['provider', 'code'] as const,
    registers: [this.registry],
  });
  readonly #storeFailures = new Counter({
    name: 'docs_chat_conversation_store_failures_total',
    help: 'Conversation store operations that failed because the database could not be reached or did not answer.',
    labelNames: ['backend'] as const,
    registers: [this.registry],
  });
  readonly #databaseProcessExits = new Counter({
    name: 'docs_chat_database_process_exits_total',
    help: 'Times the embedded PGlite database process (no DATABASE_URL) ended while the server ran; it is restarted.',
    registers: [this.registry],
  });
  readonly #ingestRuns = new Counter({
    name: 'docs_chat_ingest_runs_total',
    help: 'Ingest runs started by the admin route or the git sync, by outcome.',
    labelNames: ['trigger', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly #ingestDuration = new Histogram({
    name: 'docs_chat_ingest_duration_seconds',
    help: 'Duration of ingest runs.',
    labelNames: ['trigger'] as const,
    buckets: INGEST_BUCKETS,
    registers: [this.registry],
  });
  // With several server processes (WORKERS > 1), /metrics adds up every process's figures (cluster-metrics.ts).
  // These two gauges describe one index, not a process: the figures of the process that ingested last are kept.
  readonly #ingestChunks = new Gauge({
    name: INGEST_CHUNKS_METRIC,
    help: 'Chunks in the index after the last successful ingest run.',
    aggregator: 'first',
    registers: [this.registry],
  });
  readonly #ingestLastSuccess = new Gauge({
    name: INGEST_LAST_SUCCESS_METRIC,
    help: 'Unix time of the last successful ingest run (0 until one succeeds while this server runs).',
    aggregator: 'max',
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean; modelProvider: string; storeBackend: string }) {
    this.#modelProvider = options.modelProvider;
    this.#storeBackend = options.storeBackend;
    // Process CPU, memory, event-loop lag, handles: prom-client's standard set, with the usual names.
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    // Zero series exist from the start, so rates and alerts work before the first event.
    for (const outcome of ['answered', 'out_of_scope']) this.#answers.inc({ outcome }, 0);
    this.#storeFailures.inc({ backend: this.#storeBackend }, 0);
    this.#ingestLastSuccess.set(0);
  }

  readonly #modelProvider: string;
  readonly #storeBackend: string;

  /** This process's figures, to be added up with the other processes' (WORKERS > 1, see cluster-metrics.ts). */
  snapshot(): Promise<ProcessMetrics> {
    return this.registry.getMetricsAsJSON();
  }

  /** One HTTP response; `route` is the template (`/conversations/:id`), never the raw path. */
  observeRequest(method: string, route: string, statusCode: number): void {
    this.#requests.inc({ method, route, status: String(statusCode) });
    if (statusCode === 429) this.#rateLimited.inc({ route });
  }

  observeAnswer(answer: AnswerObservation): void {
    const finishReason = answer.finishReason ?? 'unknown';
    this.#answer.observe({ mode: answer.mode, finish_reason: finishReason }, answer.durationMs / 1000);
    if (answer.firstTextMs !== undefined) this.#timeToFirstToken.observe({ mode: answer.mode }, answer.firstTextMs / 1000);
    if (answer.retrievalMs !== undefined) this.#retrieval.observe(answer.retrievalMs / 1000);
    if (answer.outOfScope !== undefined) this.#answers.inc({ outcome: answer.outOfScope ? 'out_of_scope' : 'answered' });
    if (answer.modelError !== undefined) this.#modelErrors.inc({ provider: this.#modelProvider, code: answer.modelError });
  }

  observeModelRetry(code: string): void {
    this.#modelRetries.inc({ provider: this.#modelProvider, code });
  }

  observeStoreFailure(): void {
    this.#storeFailures.inc({ backend: this.#storeBackend });
  }

  observeDatabaseProcessExit(): void {
    this.#databaseProcessExits.inc();
  }

  observeIngest(run: IngestObservation): void {
    this.#ingestRuns.inc({ trigger: run.trigger, outcome: run.outcome });
    this.#ingestDuration.observe({ trigger: run.trigger }, run.durationMs / 1000);
    if (run.outcome === 'success') {
      if (run.chunks !== undefined) this.#ingestChunks.set(run.chunks);
      this.#ingestLastSuccess.set(Math.round(Date.now() / 1000));
    }
  }

  /** Runs an ingest and records it, whatever its outcome. */
  async timeIngest<T>(
    trigger: IngestObservation['trigger'],
    run: () => Promise<T>,
    chunksOf: (report: T) => number | undefined,
  ): Promise<T> {
    const started = performance.now();
    try {
      const report = await run();
      const chunks = chunksOf(report);
      this.observeIngest({
        trigger,
        outcome: 'success',
        durationMs: performance.now() - started,
        ...(chunks === undefined ? {} : { chunks }),
      });
      return report;
    } catch (error) {
      this.observeIngest({ trigger, outcome: 'failure', durationMs: performance.now() - started });
      throw error;
    }
  }
}
