/** `GET /health`: 200 while the required vector store answers (healthy or degraded), 503 when it does not. */
import type { FastifyPluginAsync } from 'fastify';
import { checkHealth, type HealthSources } from '../health/health-check.js';

export interface HealthRoutesOptions {
  sources: HealthSources;
}

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, { sources }) => {
  app.get('/health', { logLevel: 'warn' }, async (_request, reply) => {
    const report = await checkHealth(sources);
    reply.header('cache-control', 'no-store');
    return reply.code(report.status === 'unhealthy' ? 503 : 200).send(report);
  });
};
