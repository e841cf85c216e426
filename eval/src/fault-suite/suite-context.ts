/** What the checks share: the main server, its stand-in, its database and the report. */
import type { Sql } from 'postgres';
import type { GeminiStandIn } from '@docs-chat/stand-ins';
import type { ConversationBody } from '../../../packages/server/src/plugins/conversation-routes.js';
import type { SuiteReport } from './report.js';
import type { ServerProcess } from './processes.js';
import type { TcpRelay } from './tcp-relay.js';

/**
 * Questions the server's own tests rely on being in scope of its fixture docs, so they reach the model:
 * the checks that steer the model stand-in use only these.
 */
export const MODEL_QUESTIONS = [
  'How do I install Tidewater?',
  'What are the options for configuring the harbor?',
  'How do I write a lock?',
  'What is a lock?',
] as const;

/** Questions about the server's fixture docs (a fictional library, Tidewater), for traffic. */
export const QUESTIONS = [
  'How do I install Tidewater?',
  'How do I write a lock in Tidewater?',
  'What options does openHarbor accept?',
  'How do I persist the harbor state?',
  'Can I have several harbors?',
  'How do I split the current of a harbor?',
  'What errors can openHarbor throw?',
  'Is Tidewater tied to a UI framework?',
] as const;

export interface SuiteContext {
  report: SuiteReport;
  /** The main server: conversations through the relay (or PGlite), admin token, default log level. */
  main: ServerProcess;
  gemini: GeminiStandIn;
  dataDir: string;
  docsDir: string;
  adminToken: string;
  /** Null when no Postgres answers (PGlite is used). */
  relay: TcpRelay | null;
  /** A direct connection to the main server's schema, for counting rows; null on PGlite. */
  sql: Sql | null;
  /** Every message text sent to the main server, to search its logs for afterwards. */
  sent: Set<string>;
}

export function chatBody(message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { message, mode: 'general', ...extra };
}

export async function getConversation(url: string, id: string): Promise<{ status: number; body: ConversationBody }> {
  const response = await fetch(`${url}/conversations/${id}`);
  return { status: response.status, body: (await response.json()) as ConversationBody };
}

export async function health(
  url: string,
): Promise<{ status: number; body: { status: string; services: { postgres: { status: string } } } }> {
  const response = await fetch(`${url}/health`);
  return { status: response.status, body: (await response.json()) as { status: string; services: { postgres: { status: string } } } };
}

/** Polls until `check` holds; throws with `what` after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
