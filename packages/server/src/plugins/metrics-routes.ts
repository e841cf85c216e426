/**
 * `GET /metrics`: the server's metrics in Prometheus text format. Open unless
 * METRICS_TOKEN is set; then a scrape must send "Authorization: Bearer <token>".
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { HttpError } from '../http-errors.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';

export interface MetricsRoutesOptions {
  metrics: ServerMetrics;
  token: string | undefined;
}

// Compared as fixed-length digests so neither the token's length nor its content leaks through timing.
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

export const metricsRoutes: FastifyPluginAsync<MetricsRoutesOptions> = async (app, { metrics, token }) => {
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
    const body = await metrics.registry.metrics();
    // What rendering took, apart from any wait in the event loop's queue: a slow scrape with a small figure
    // here means the server was busy (see nodejs_eventloop_lag_*), not that the metrics are costly.
    const renderMs = performance.now() - started;
    return reply
      .header('content-type', metrics.registry.contentType)
      .header('cache-control', 'no-store')
      .header('server-timing', `render;dur=${renderMs.toFixed(2)}`)
      .send(body);
  });
};
