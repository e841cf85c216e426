/**
 * `GET /health`: 200 while the required vector store answers (healthy or degraded), 503 when it does not.
 * Dependency states come from a check at most `cacheMs` old (see createHealthReporter).
 */
import type { FastifyPluginAsync } from 'fastify';
import { createHealthReporter, type HealthSources } from '../health/health-check.js';

export interface HealthRoutesOptions {
  sources: HealthSources;
  /** HEALTH_CACHE_MS: how old a dependency check may be before a poll refreshes it. */
  cacheMs: number;
}

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, { sources, cacheMs }) => {
  const health = createHealthReporter(sources, cacheMs);
  app.get('/health', { logLevel: 'warn' }, async (_request, reply) => {
    const report = await health.report();
    reply.header('cache-control', 'no-store');
    return reply.code(report.status === 'unhealthy' ? 503 : 200).send(report);
  });
};
