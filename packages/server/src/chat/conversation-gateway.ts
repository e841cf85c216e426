/**
 * The conversation store as the server uses it: every call goes through
 * `run`, which turns any failure to reach the database into
 * ConversationStoreUnavailableError and re-runs the migrations once the
 * database is back after an outage at start-up. The chat keeps streaming when
 * this fails; only saving is lost, and the reader is told.
 */
import type { ConversationStore } from '../conversations/conversation-store.js';
import { ConversationStoreUnavailableError } from '../conversations/conversation-store.js';

/** Logging as the chat code needs it; pino and Fastify's logger fit. */
export interface ServerLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

const MIGRATION_RETRY_MS = 2000;
/** A database that accepts connections but never answers must not hold up start-up or a reader's answer. */
export const DEFAULT_OPERATION_TIMEOUT_MS = 5000;

export class ConversationGateway {
  private migrated = false;
  private migrating: Promise<void> | null = null;
  private lastMigrationFailure = 0;

  constructor(
    readonly store: ConversationStore,
    private readonly logger: ServerLogger,
    private readonly operationTimeoutMs = DEFAULT_OPERATION_TIMEOUT_MS,
    /** Told of each operation that failed because the database was unreachable (for the metrics). */
    private readonly hooks: { onUnavailable?: () => void } = {},
  ) {}

  get backend(): ConversationStore['backend'] {
    return this.store.backend;
  }

  /** Runs the migrations; on failure the server still starts and tries again on later requests. */
  async migrate(): Promise<boolean> {
    try {
      await this.ensureMigrated(true);
      return true;
    } catch (error) {
      this.logger.warn({ err: describeError(error) }, 'conversation store unavailable at start-up: answers will stream without being saved');
      return false;
    }
  }

  async run<T>(operation: (store: ConversationStore) => Promise<T>): Promise<T> {
    try {
      await this.ensureMigrated(false);
      return await withDeadline(operation(this.store), this.operationTimeoutMs);
    } catch (error) {
      const failure = asUnavailable(error);
      if (failure instanceof ConversationStoreUnavailableError) this.hooks.onUnavailable?.();
      throw failure;
    }
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.store.ping(timeoutMs);
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  private async ensureMigrated(force: boolean): Promise<void> {
    if (this.migrated) return;
    if (!force && Date.now() - this.lastMigrationFailure < MIGRATION_RETRY_MS) {
      throw new ConversationStoreUnavailableError('The conversation database was unreachable moments ago.');
    }
    this.migrating ??= withDeadline(this.store.migrate(), this.operationTimeoutMs)
      .then(() => {
        this.migrated = true;
      })
      .catch((error: unknown) => {
        this.lastMigrationFailure = Date.now();
        throw asUnavailable(error);
      })
      .finally(() => {
        this.migrating = null;
      });
    await this.migrating;
  }
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ConversationStoreUnavailableError(`The conversation database did not answer within ${ms} ms.`)),
      ms,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

function asUnavailable(error: unknown): Error {
  if (error instanceof ConversationStoreUnavailableError) return error;
  if (isDatabaseConnectionError(error)) {
    return new ConversationStoreUnavailableError('The conversation database cannot be reached.', { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

function isDatabaseConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|57P0[1-3])$/.test(code);
}

/** What may be logged about an error: its class, code and message, never request data. */
export function describeError(error: unknown): { type: string; code?: string; message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { type: error.name, ...(typeof code === 'string' ? { code } : {}), message: error.message };
  }
  return { type: typeof error, message: String(error) };
}
