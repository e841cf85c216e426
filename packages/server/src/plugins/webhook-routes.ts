/**
 * `POST /webhooks/git`: a push to the synced branch starts the git sync in the
 * background (202); the request never waits for git.
 *
 * - GitHub: `X-Hub-Signature-256` must be the HMAC-SHA256 of the raw body with
 *   GIT_WEBHOOK_SECRET, compared in constant time; a `ping` is answered.
 * - GitLab: `X-Gitlab-Token` must equal GIT_WEBHOOK_SECRET (digests compared
 *   in constant time).
 * A bad or missing signature is refused with 401 and runs nothing. A delivery
 * id seen before (a redelivery or a replay) is ignored, so are pushes to other
 * branches and other events.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { HttpError } from '../http-errors.js';
import type { GitSyncJob } from '../sync/git-sync-job.js';

export interface WebhookRoutesOptions {
  secret: string;
  job: GitSyncJob;
  /** The synced branch (GIT_REF); the repository's default branch, as the push event names it, when unset. */
  branch: string | undefined;
}

/** GitHub caps webhook payloads at 25 MB; a big push must not be refused by the chat-sized BODY_LIMIT_BYTES. */
const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;

/** Delivery ids remembered for replay detection; older ones are forgotten first. */
const REMEMBERED_DELIVERIES = 1000;

export const webhookRoutes: FastifyPluginAsync<WebhookRoutesOptions> = async (app, { secret, job, branch }) => {
  const seen = new Set<string>();
  const remember = (id: string): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    if (seen.size > REMEMBERED_DELIVERIES) seen.delete(seen.values().next().value as string);
    return true;
  };

  // The signature covers the exact bytes sent, so this route reads the body raw and parses it after checking.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post('/webhooks/git', { bodyLimit: WEBHOOK_BODY_LIMIT }, async (request, reply) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const headers = request.headers;
    const githubEvent = header(headers['x-github-event']);
    const gitlabEvent = header(headers['x-gitlab-event']);
    let host: 'github' | 'gitlab';
    if (githubEvent !== undefined) {
      const signature = header(headers['x-hub-signature-256']) ?? '';
      const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
      if (!sameSecret(signature, expected)) throw new HttpError('signature_invalid');
      host = 'github';
    } else if (gitlabEvent !== undefined) {
      if (!sameSecret(header(headers['x-gitlab-token']) ?? '', secret)) throw new HttpError('signature_invalid');
      host = 'gitlab';
    } else {
      throw new HttpError('signature_invalid');
    }

    const delivery =
      header(headers['x-github-delivery']) ?? header(headers['x-gitlab-event-uuid']) ?? header(headers['x-gitlab-webhook-uuid']);
    if (delivery !== undefined && !remember(`${host}:${delivery}`)) {
      return reply.code(200).send({ status: 'ignored', reason: `delivery ${delivery} was already received` });
    }
    if (host === 'github' && githubEvent === 'ping')
      return reply.code(200).send({ status: 'ok', reason: 'ping received; push events will start a sync' });
    const isPush = host === 'github' ? githubEvent === 'push' : gitlabEvent === 'Push Hook';
    if (!isPush)
      return reply.code(202).send({ status: 'ignored', reason: `only push events start a sync (got ${githubEvent ?? gitlabEvent})` });

    let payload: { ref?: unknown; repository?: { default_branch?: unknown }; project?: { default_branch?: unknown } };
    try {
      payload = JSON.parse(raw.toString('utf8')) as typeof payload;
    } catch {
      throw new HttpError('invalid_json', {
        message: 'The push event body is not JSON; set the webhook content type to application/json.',
      });
    }
    const wanted = branch ?? (host === 'github' ? payload.repository?.default_branch : payload.project?.default_branch);
    if (typeof payload.ref !== 'string' || typeof wanted !== 'string' || payload.ref !== `refs/heads/${wanted}`) {
      return reply
        .code(202)
        .send({ status: 'ignored', reason: `the push is to ${String(payload.ref)}, not to the synced branch ${String(wanted)}` });
    }
    const result = job.request(host);
    request.log.info({ host, delivery, result }, 'git webhook accepted');
    return reply.code(202).send({ status: result });
  });
};

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Constant-time comparison of two strings of any length (their SHA-256 digests are compared). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b) && given.length > 0;
}
