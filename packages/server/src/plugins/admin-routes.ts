/**
 * `POST /admin/ingest`: runs the incremental ingest and returns its report.
 * Registered only when ADMIN_TOKEN is set (checked by `admin-auth.ts`).
 * One ingest at a time: 409 while one runs here or in another process.
 */
import type { FastifyPluginAsync } from 'fastify';
import { Wire, type Static } from '@docs-chat/core/protocol';
import { describeError } from '../chat/conversation-gateway.js';
import { isDocsChatError, type RunIngest } from '../core-api.js';
import { HttpError } from '../http-errors.js';
import type { GitSyncJob } from '../sync/git-sync-job.js';
import { requireAdminToken } from './admin-auth.js';

export interface AdminRoutesOptions {
  adminToken: string;
  runIngest: RunIngest;
  /** The git sync job (GIT_URL set); `/admin/sync` answers 409 without it. */
  gitSync?: GitSyncJob | undefined;
}

/** Body of `POST /admin/ingest`: optional, as is each field. */
const ingestBodySchema = Wire.nullable(
  Wire.object({ rebuild: Wire.optional(Wire.boolean()), dry_run: Wire.optional(Wire.boolean()) }, { closed: true }),
);

export const adminRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (app, { adminToken, runIngest, gitSync }) => {
  let running = false;

  app.addHook('onRequest', requireAdminToken(adminToken));

  app.post<{ Body: Static<typeof ingestBodySchema> }>('/admin/ingest', { schema: { body: ingestBodySchema } }, async (request) => {
    const options = { rebuild: request.body?.rebuild ?? false, dryRun: request.body?.dry_run ?? false };
    if (running) throw new HttpError('ingest_running');
    running = true;
    const startedAt = Date.now();
    try {
      request.log.info({ rebuild: options.rebuild, dryRun: options.dryRun }, 'admin ingest started');
      const report = await runIngest(options);
      request.log.info({ durationMs: Date.now() - startedAt }, 'admin ingest finished');
      return { report };
    } catch (error) {
      if (isDocsChatError(error) && error.code === 'ingest_locked') throw new HttpError('ingest_running');
      request.log.error({ err: describeError(error) }, 'admin ingest failed');
      // Core errors are written for admins (what failed and what to do) and hold no secrets.
      if (isDocsChatError(error)) throw new HttpError('ingest_failed', { message: error.describe() });
      throw new HttpError('ingest_failed');
    } finally {
      running = false;
    }
  });

  // The sync runs in the background: the answer says whether it started or was queued behind a running one.
  app.post('/admin/sync', async (_request, reply) => {
    if (!gitSync) throw new HttpError('sync_not_configured');
    return reply.code(202).send({ status: gitSync.request('admin'), status_url: '/admin/ingest/status' });
  });

  app.get('/admin/ingest/status', async () => ({
    git: gitSync ? { configured: true, ...gitSync.status() } : { configured: false },
    ingest: { running },
  }));
};
