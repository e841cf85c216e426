/**
 * The ADMIN_TOKEN check shared by the admin routes: `Authorization: Bearer <token>`,
 * compared in constant time (digests of equal length) so response timing reveals
 * nothing about the token. Anything else is a 401 that says what to send.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../http-errors.js';

/** An `onRequest` hook that lets through only requests carrying the admin token. */
export function requireAdminToken(adminToken: string): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const expected = digest(adminToken);
  return async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1] ?? ''), expected)) {
      reply.header('www-authenticate', 'Bearer realm="docs-chat admin"');
      throw new HttpError('unauthorized');
    }
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
