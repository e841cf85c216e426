/**
 * `GET /metrics` with several server processes (WORKERS > 1): whichever
 * process takes the scrape asks the primary for every process's figures
 * (`registry.getMetricsAsJSON()`, sent over the cluster's IPC channel) and
 * renders their aggregate, so one scrape describes the whole server and not
 * the process the connection happened to reach.
 *
 * Merging is prom-client's `AggregatorRegistry.aggregate`: counters and
 * histograms are summed, and each metric may name another rule (`aggregator`):
 * the event-loop lag is averaged, and so on.
 */
import { AggregatorRegistry, Gauge, type PrometheusContentType, type Registry } from 'prom-client';
import { INGEST_LAST_SUCCESS_METRIC, type ProcessMetrics } from './server-metrics.js';

export interface ClusterMetrics {
  /** The figures of each process that answered in time. */
  parts: ProcessMetrics[];
  /** How many server processes the primary runs (ready ones). */
  processes: number;
}

/**
 * prom-client leaves a process's start time out of an aggregate, but the documented stale-index alert asks how
 * long the server has been up: the cluster's figure is the start of its oldest running process.
 */
const START_TIME_METRIC = 'process_start_time_seconds';

function lastIngestOf(part: ProcessMetrics): number {
  const metric = part.find((candidate) => candidate.name === INGEST_LAST_SUCCESS_METRIC);
  return metric?.values[0]?.value ?? 0;
}

/**
 * One registry for the whole cluster. The ingest gauges take the figures of
 * the process that ingested last ("first" once the parts are ordered so), and
 * two gauges say how many processes the figures cover, so a scrape that missed
 * a busy process can be told apart from a quiet server.
 */
export function aggregateClusterMetrics({ parts, processes }: ClusterMetrics): Registry {
  const ordered = [...parts]
    .sort((left, right) => lastIngestOf(right) - lastIngestOf(left))
    .map((part) => part.map((metric) => (metric.name === START_TIME_METRIC ? { ...metric, aggregator: 'min' as const } : metric)));
  const registry = AggregatorRegistry.aggregate<PrometheusContentType>(ordered);
  new Gauge({
    name: 'docs_chat_server_processes',
    help: 'Server processes running (WORKERS).',
    registers: [registry],
  }).set(processes);
  new Gauge({
    name: 'docs_chat_server_processes_reporting',
    help: 'Server processes whose figures this scrape adds up; fewer than docs_chat_server_processes when one did not answer in time.',
    registers: [registry],
  }).set(parts.length);
  return registry;
}
