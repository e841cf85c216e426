/**
 * `GET /metrics`: the server's metrics in Prometheus text format. Open unless
 * METRICS_TOKEN is set; then a scrape must send "Authorization: Bearer <token>".
 * With several server processes, the figures of all of them, added up.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import { HttpError } from '../http-errors.js';

export interface MetricsRoutesOptions {
  /** The registry to render: this process's, or the whole cluster's (cluster-metrics.ts). */
  collect: () => Registry | Promise<Registry>;
  token: string | undefined;
}

const RETRY_SCRAPE_SECONDS = 5;

// Compared as fixed-length digests so neither the token's length nor its content leaks through timing.
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

export const metricsRoutes: FastifyPluginAsync<MetricsRoutesOptions> = async (app, { collect, token }) => {
  const expected = token === undefined ? undefined : digest(token);
  app.get('/metrics', async (request, reply) => {
    if (expected !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!match || !timingSafeEqual(digest(match[1] ?? ''), expected)) {
        reply.header('www-authenticate', 'Bearer realm="docs-chat metrics"');
        throw new HttpError('unauthorized', {
          message:
            'Send "Authorization: Bearer <METRICS_TOKEN>" with the token configured on the server (set it as the scrape job\'s bearer token in Prometheus).',
        });
      }
    }
    const started = performance.now();
    let registry: Registry;
    try {
      registry = await collect();
    } catch (error) {
      request.log.warn({ err: { message: (error as Error).message } }, 'could not gather the metrics of every server process');
      throw new HttpError('service_busy', {
        message: 'The metrics of the other server processes did not arrive in time; scrape again (Prometheus does at its next interval).',
        retryAfterSeconds: RETRY_SCRAPE_SECONDS,
      });
    }
    const body = await registry.metrics();
    // What gathering and rendering took, apart from any wait in the event loop's queue: a slow scrape with a small figure
    // here means the server was busy (see nodejs_eventloop_lag_*), not that the metrics are costly.
    const renderMs = performance.now() - started;
    return reply
      .header('content-type', registry.contentType)
      .header('cache-control', 'no-store')
      .header('server-timing', `render;dur=${renderMs.toFixed(2)}`)
      .send(body);
  });
};
