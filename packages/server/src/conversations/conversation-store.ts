/**
 * Where conversations, their messages and the readers' feedback are kept.
 *
 * One interface, two implementations chosen from configuration (see
 * `create-conversation-store.ts`): Postgres through the `postgres` driver when
 * DATABASE_URL is set, else embedded PGlite under DATA_DIR. Both run the same
 * SQL (see `migrations.ts`).
 */
import type { ChatMode, FinishReason, SourceRef, TokenUsage } from '@docs-chat/core/protocol';
import type { InsightsQuery, InsightsRows } from './insights-queries.js';

export type MessageRole = 'user' | 'assistant' | 'system';

/** pending: assistant answer being generated; complete; interrupted: reader left; error: upstream failure. */
export type MessageStatus = 'pending' | 'complete' | 'interrupted' | 'error';

export interface StoredMessage {
  id: string;
  conversationId: string;
  role: MessageRole;
  content: string;
  mode: ChatMode | null;
  sources: SourceRef[];
  status: MessageStatus;
  finishReason: FinishReason | null;
  /** ISO 8601. */
  createdAt: string;
  /** The reader's rating of this answer, when they gave one (so a resumed conversation shows it). */
  rating?: 'up' | 'down';
}

export interface StoredConversation {
  id: string;
  /** ISO 8601. */
  createdAt: string;
  /** Oldest first, in insertion order. */
  messages: StoredMessage[];
}

export interface NewMessage {
  id: string;
  conversationId: string;
  role: MessageRole;
  content: string;
  mode: ChatMode | null;
  sources?: SourceRef[];
  status: MessageStatus;
}

/** The opening of one answer: the question and the pending answer row, and the conversation when it is new. */
export interface NewTurn {
  conversationId: string;
  /** True when the conversation row must be created first (a first question). */
  newConversation: boolean;
  mode: ChatMode;
  question: { id: string; content: string };
  /** The page the reader asked from, kept for the insights report (selection use by page). */
  page?: { url: string; title: string } | undefined;
  /** The assistant row, stored 'pending' with no content until `finishMessage`. */
  answerId: string;
}

export interface FinishedMessage {
  content: string;
  status: MessageStatus;
  sources: SourceRef[];
  finishReason: FinishReason | null;
  usage: TokenUsage | null;
}

/** One answer's final state, as `finishMessages` takes it. */
export interface FinishedAnswer {
  id: string;
  update: FinishedMessage;
}

/** The text streamed so far of one pending answer, as `saveProgresses` takes it. */
export interface AnswerProgress {
  id: string;
  content: string;
}

export interface NewFeedback {
  messageId: string;
  /** null takes an earlier rating back (the reader un-pressed the thumb). */
  rating: 'up' | 'down' | null;
  reason?: string;
}

export interface ConversationStore {
  readonly backend: 'postgres' | 'pglite';
  /** Runs versioned migrations; idempotent; safe when several replicas start at once (advisory lock on postgres). */
  migrate(): Promise<void>;
  createConversation(id: string): Promise<void>;
  conversationExists(id: string): Promise<boolean>;
  getConversation(id: string): Promise<StoredConversation | null>;
  insertMessage(message: NewMessage): Promise<void>;
  /**
   * Stores a turn's opening in one statement (one round trip, one commit): the conversation when new,
   * then the question, then the pending answer, in that order. All or nothing.
   */
  startTurn(turn: NewTurn): Promise<void>;
  /** Final content/status of an assistant message, however generation ended. */
  finishMessage(id: string, update: FinishedMessage): Promise<void>;
  /** The final states of several answers in one statement (one round trip, one commit); all or nothing. */
  finishMessages(answers: readonly FinishedAnswer[]): Promise<void>;
  /** The text streamed so far of a pending answer (one statement); no effect once the answer is finished. */
  saveProgress(id: string, content: string): Promise<void>;
  /** `saveProgress` for several answers in one statement. */
  saveProgresses(saves: readonly AnswerProgress[]): Promise<void>;
  /**
   * Marks `interrupted` every pending answer not written to for `staleMs`, keeping its saved text: answers
   * whose server was killed or lost the database before their final save. `runningIds` (answers this server
   * is still writing) are left alone. Returns how many.
   */
  interruptStalePending(staleMs: number, runningIds: readonly string[]): Promise<number>;
  /**
   * The last `pairs` user+assistant pairs, oldest first, complete/interrupted answers only: the question
   * being answered (answer pending or not stored yet) is never part of it, so this may run alongside startTurn.
   */
  recentTurns(conversationId: string, pairs: number): Promise<{ role: 'user' | 'assistant'; content: string }[]>;
  /**
   * 'unknown_message' when no assistant message has that id. A rating replaces an earlier one for the same
   * message; a null rating removes it ('stored' also when there was none: the outcome the reader wants holds).
   */
  addFeedback(feedback: NewFeedback): Promise<'stored' | 'unknown_message'>;
  /** Removes a conversation with its messages, feedback and shares; false when there was none. */
  deleteConversation(id: string): Promise<boolean>;
  /** Records a share id (made by the caller, unguessable) for a conversation; false when the conversation does not exist. */
  createShare(conversationId: string, shareId: string): Promise<boolean>;
  /** The conversation a share id points at; null when the share or its conversation is gone. */
  getSharedConversation(shareId: string): Promise<StoredConversation | null>;
  /**
   * Removes up to `limit` conversations started before `cutoff` with no message written since, with all that
   * belongs to them; returns how many (call again while it returns `limit`).
   */
  deleteConversationsOlderThan(cutoff: Date, limit: number): Promise<number>;
  /** The aggregates of the insights report over one period (see `insights-queries.ts`); no row ids. */
  readInsights(query: InsightsQuery): Promise<InsightsRows>;
  /** Resolves when the database answers within timeoutMs; rejects otherwise. */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Any failure to reach the database becomes this error (code 'conversation_store_unavailable'). */
export class ConversationStoreUnavailableError extends Error {
  readonly code = 'conversation_store_unavailable';
  readonly hint: string;

  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ConversationStoreUnavailableError';
    this.hint =
      options.hint ??
      'Check that the database in DATABASE_URL is running and reachable; answers still stream but are not saved until it is back.';
  }
}

/** What a server hears about its embedded database's child process (see pglite-process-store.ts). */
export interface PgliteProcessEvent {
  kind: 'exited' | 'restarted' | 'restart_failed';
  pid?: number | undefined;
  code?: number | null;
  signal?: string | null;
  /** The end of what the process wrote to stderr, or why it could not start. */
  detail?: string;
  /** When the next start is tried. */
  restartInMs?: number;
}

export interface ConversationStoreOptions {
  /** postgres:// URL; when absent the embedded PGlite store is used. Query parameters such as `search_path` pass through. */
  databaseUrl?: string;
  /** DATA_DIR; PGlite keeps its files in `${dataDir}/conversations` ('memory://' when dataDir is ':memory:'). */
  dataDir: string;
  /** A statement that takes longer fails with ConversationStoreUnavailableError (default 10 s). */
  queryTimeoutMs?: number;
  /** Postgres only: seconds to wait for a connection (default 5, or `connect_timeout` in the URL). */
  connectTimeoutSeconds?: number;
  /**
   * PGlite on disk only: run the database in a child process (see pglite-process-store.ts), as the server does,
   * so its statements leave the event loop. Short-lived commands open it in their own process.
   */
  pgliteProcess?: boolean;
  /** With `pgliteProcess`: told when the database process dies and when it is back. */
  onPgliteProcessEvent?: (event: PgliteProcessEvent) => void;
}
