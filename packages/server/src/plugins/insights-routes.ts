/**
 * `GET /admin/insights?since=7d`: the insights report for docs owners (see
 * `insights/insights-report.ts`). Registered when ADMIN_TOKEN is set, behind
 * the same bearer check as the other admin routes. The report holds question
 * texts and answers but never a conversation or message id.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ConversationGateway } from '../chat/conversation-gateway.js';
import type { OpenRetrieval } from '../app.js';
import type { Embedder } from '../core-api.js';
import { HttpError } from '../http-errors.js';
import { buildInsightsReport, parsePeriod, QuestionEmbeddingCache, type InsightsReport } from '../insights/insights-report.js';
import { InsightsReportCache } from '../insights/insights-report-cache.js';
import { requireAdminToken } from './admin-auth.js';

export interface InsightsRoutesOptions {
  adminToken: string;
  conversations: ConversationGateway;
  /** Read on every call: the admin ingest may swap the retriever and embedder. */
  retrieval: OpenRetrieval;
  /** How long a period's report is kept (INSIGHTS_CACHE_SECONDS); 0 builds one per request. */
  cacheMs: number;
}

export const insightsRoutes: FastifyPluginAsync<InsightsRoutesOptions> = async (app, { adminToken, conversations, retrieval, cacheMs }) => {
  app.addHook('onRequest', requireAdminToken(adminToken));
  const embeddingCache = new QuestionEmbeddingCache();
  const reports = new InsightsReportCache<InsightsReport>({ ttlMs: cacheMs });

  app.get('/admin/insights', async (request, reply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const unknown = Object.keys(query).filter((key) => key !== 'since');
    if (unknown.length > 0) {
      throw new HttpError('invalid_request', {
        details: unknown.map((key) => `Unknown parameter "${key}": the only parameter is since (e.g. since=7d).`),
      });
    }
    const since = query.since;
    if (since !== undefined && typeof since !== 'string') {
      throw new HttpError('invalid_request', { details: ['Send "since" once, e.g. since=7d.'] });
    }
    const period = parsePeriod(since);
    if ('error' in period) throw new HttpError('invalid_request', { details: [period.error] });
    const report = await reports.get(period.label, () => {
      const embedder = retrieval.embedder;
      return buildInsightsReport(
        {
          conversations: { readInsights: (insightsQuery) => conversations.run((store) => store.readInsights(insightsQuery)) },
          // The embedder itself (not a wrapper): the cache is tied to its identity.
          embedder: embedder?.embed && embedder.maxBatchSize ? (embedder as Pick<Embedder, 'embed' | 'maxBatchSize'>) : undefined,
          retriever: retrieval.retriever,
          embeddingCache,
        },
        period,
      );
    });
    // Reader questions and answers: never cached by a proxy or the browser.
    reply.header('cache-control', 'no-store');
    return report;
  });
};
