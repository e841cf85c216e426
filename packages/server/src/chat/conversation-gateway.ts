/**
 * The conversation store as the server uses it: every call goes through
 * `run`, which turns any failure to reach the database into
 * ConversationStoreUnavailableError and re-runs the migrations once the
 * database is back after an outage at start-up. The chat keeps streaming when
 * this fails; only saving is lost, and the reader is told.
 */
import type { AnswerProgress, ConversationStore, FinishedAnswer, FinishedMessage } from '../conversations/conversation-store.js';
import { ConversationStoreUnavailableError } from '../conversations/conversation-store.js';
import { SaveBatcher } from './save-batcher.js';

/** Logging as the chat code needs it; pino and Fastify's logger fit. */
export interface ServerLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

const MIGRATION_RETRY_MS = 2000;
/**
 * A pending answer of another server not written to for this long is taken for dead. Running answers save
 * their text every second, but one waiting for the model's first words writes nothing, hence the margin.
 * PGlite's data directory is locked to one server, so there every pending answer not running here is dead.
 */
export const STALE_PENDING_MS = { postgres: 120_000, pglite: 0 } as const;
/** Final saves kept in memory while the database is away, to write once it is back. */
const MAX_UNSAVED_FINISHES = 1000;
/** A database that accepts connections but never answers must not hold up start-up or a reader's answer. */
export const DEFAULT_OPERATION_TIMEOUT_MS = 5000;
/** While the database is not answering, how often a ping asks whether it answers again. */
export const NOT_ANSWERING_PROBE_MS = 1000;
/**
 * While answers end less than this apart, a final save waits up to this long for others to be written with it
 * (see save-batcher.ts). It delays the `done` event of a busy server by as much, never its tokens.
 */
export const FINISH_LINGER_MS = 20;
/** At most this many saves (final or progress) in one statement. */
export const SAVE_MAX_BATCH = 64;
/**
 * The same for the saves of the text streamed so far, which nobody waits for: they may wait longer for company.
 * A killed server then loses up to this much more of an answer than the second between two saves.
 */
export const PROGRESS_LINGER_MS = 100;

export class ConversationGateway {
  private migrated = false;
  private migrating: Promise<void> | null = null;
  private lastMigrationFailure = 0;
  /** Answers being written by this server: never taken for dead. */
  private readonly running = new Set<string>();
  /** Final saves that failed because the database was away. */
  private readonly unsavedFinishes = new Map<string, FinishedMessage>();
  /** Set at start and whenever the database was lost: the next successful call recovers (see `recover`). */
  private needsRecovery = true;
  private recovering: Promise<void> | null = null;
  /**
   * Set when an operation ran past its deadline (a database that accepts connections but does not answer: a
   * stalled host, a stopped process). Until a ping succeeds again, operations fail at once instead of each
   * reader's question waiting out the deadline before its answer starts; the answers stream unsaved meanwhile.
   */
  private notAnswering: { since: number; probe: NodeJS.Timeout } | null = null;
  /** A ping of the not-answering database is under way (one at a time). */
  private pinging = false;
  private closed = false;
  /** Final saves of answers that end close together go to the database as one statement. */
  private readonly finishes = new SaveBatcher<FinishedAnswer>({
    write: (batch) => this.run((store) => store.finishMessages(batch)),
    lingerMs: FINISH_LINGER_MS,
    maxBatch: SAVE_MAX_BATCH,
  });
  /** Saves of answers' text so far, batched the same way. */
  private readonly progress = new SaveBatcher<AnswerProgress>({
    write: (batch) => this.run((store) => store.saveProgresses(batch)),
    lingerMs: PROGRESS_LINGER_MS,
    maxBatch: SAVE_MAX_BATCH,
  });

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
      await this.recover();
      return true;
    } catch (error) {
      this.logger.warn(
        { err: describeError(error) },
        'conversation store unavailable at start-up: answers will stream without being saved',
      );
      return false;
    }
  }

  async run<T>(operation: (store: ConversationStore) => Promise<T>): Promise<T> {
    try {
      if (this.notAnswering) {
        throw new ConversationStoreUnavailableError(
          `The conversation database has not answered for ${Math.round((Date.now() - this.notAnswering.since) / 1000)} s.`,
        );
      }
      await this.ensureMigrated(false);
      const result = await withDeadline(operation(this.store), this.operationTimeoutMs);
      if (this.needsRecovery) void this.recover();
      return result;
    } catch (error) {
      const failure = asUnavailable(error);
      if (failure instanceof ConversationStoreUnavailableError) {
        this.needsRecovery = true;
        this.hooks.onUnavailable?.();
        if (failure instanceof DeadlineExceededError) this.stoppedAnswering();
      }
      throw failure;
    }
  }

  private stoppedAnswering(): void {
    if (this.notAnswering || this.closed) return;
    this.logger.warn(
      { timeoutMs: this.operationTimeoutMs },
      'the conversation database stopped answering: answers stream without being saved until it answers again',
    );
    const probe = setInterval(() => {
      if (this.pinging) return;
      this.pinging = true;
      this.store
        .ping(this.operationTimeoutMs)
        .then(() => {
          if (!this.notAnswering) return;
          clearInterval(this.notAnswering.probe);
          const silentMs = Date.now() - this.notAnswering.since;
          this.notAnswering = null;
          this.logger.info({ silentMs }, 'the conversation database answers again: answers are saved');
          void this.recover();
        })
        .catch(() => undefined)
        .finally(() => {
          this.pinging = false;
        });
    }, NOT_ANSWERING_PROBE_MS);
    probe.unref();
    this.notAnswering = { since: Date.now(), probe };
  }

  /** Marks an answer as being written by this server (its pending row is alive). */
  answerStarted(messageId: string): void {
    this.running.add(messageId);
  }

  /**
   * Stores an answer's final state. When the database is away the save is kept and written once it is back,
   * so the answer does not stay `pending`; the error is still thrown so the reader is told.
   */
  async finishAnswer(messageId: string, update: FinishedMessage): Promise<void> {
    try {
      await this.finishes.save({ id: messageId, update });
    } catch (error) {
      if (error instanceof ConversationStoreUnavailableError && this.unsavedFinishes.size < MAX_UNSAVED_FINISHES) {
        this.unsavedFinishes.set(messageId, update);
      }
      throw error;
    } finally {
      this.running.delete(messageId);
    }
  }

  /** Saves the text an answer has streamed so far (batched with other answers' saves); no effect once it is finished. */
  async saveProgress(messageId: string, content: string): Promise<void> {
    await this.progress.save({ id: messageId, content });
  }

  /**
   * After start-up and after each database outage: writes the final saves that failed, then marks
   * `interrupted` the pending answers nobody is writing any more (a killed server), keeping their saved text.
   */
  async recover(): Promise<void> {
    this.recovering ??= (async () => {
      this.needsRecovery = false;
      try {
        for (const [messageId, update] of [...this.unsavedFinishes]) {
          await withDeadline(this.store.finishMessage(messageId, update), this.operationTimeoutMs);
          this.unsavedFinishes.delete(messageId);
        }
        const interrupted = await withDeadline(
          this.store.interruptStalePending(STALE_PENDING_MS[this.store.backend], [...this.running]),
          this.operationTimeoutMs,
        );
        if (interrupted > 0)
          this.logger.info({ interrupted }, 'answers left unfinished by a stopped server or a database outage are marked interrupted');
      } catch (error) {
        this.needsRecovery = true;
        this.logger.warn(
          { err: describeError(error) },
          'could not mark unfinished answers as interrupted; retrying after the next database call',
        );
      }
    })().finally(() => {
      this.recovering = null;
    });
    await this.recovering;
  }

  /** The answers this server is writing now (their rows are `pending` and alive). */
  runningAnswerIds(): string[] {
    return [...this.running];
  }

  /**
   * After another server process died (WORKERS > 1): marks `interrupted` the pending answers older than
   * `olderThanMs` that neither this process nor the live ones (`aliveElsewhere`) are writing. Returns how many.
   */
  async interruptOrphanedAnswers(aliveElsewhere: readonly string[], olderThanMs: number): Promise<number> {
    const interrupted = await this.run((store) => store.interruptStalePending(olderThanMs, [...this.running, ...aliveElsewhere]));
    if (interrupted > 0) this.logger.info({ interrupted }, 'answers left unfinished by a crashed server process are marked interrupted');
    return interrupted;
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.store.ping(timeoutMs);
  }

  async close(): Promise<void> {
    // Saves waiting for company are written before the connections close.
    await Promise.all([this.progress.flush(), this.finishes.flush()]);
    this.closed = true;
    if (this.notAnswering) clearInterval(this.notAnswering.probe);
    this.notAnswering = null;
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

/** The database accepted the work but gave no answer in time. */
class DeadlineExceededError extends ConversationStoreUnavailableError {}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(`The conversation database did not answer within ${ms} ms.`)), ms);
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
  return (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|57P0[1-3])$/.test(
      code,
    )
  );
}

/** What may be logged about an error: its class, code and message, never request data. */
export function describeError(error: unknown): { type: string; code?: string; message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { type: error.name, ...(typeof code === 'string' ? { code } : {}), message: error.message };
  }
  return { type: typeof error, message: String(error) };
}
