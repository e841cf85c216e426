/**
 * The conversation store written once in SQL; the Postgres and PGlite
 * factories hand it a SqlClient and say how to ping and close.
 */
import type { ChatMode, FinishReason, SourceRef } from '@docs-chat/core/protocol';
import { isUuid, upgradeLegacySource } from '@docs-chat/core/protocol';
import type {
  AnswerProgress,
  ConversationStore,
  FinishedAnswer,
  FinishedMessage,
  MessageRole,
  MessageStatus,
  NewFeedback,
  NewMessage,
  NewTurn,
  StoredConversation,
  StoredMessage,
} from './conversation-store.js';
import { ConversationStoreUnavailableError } from './conversation-store.js';
import { toStoreError } from './database-errors.js';
import type { InsightsQuery, InsightsRows } from './insights-queries.js';
import { readInsightsRows } from './insights-queries.js';
import { runMigrations } from './migrations.js';
import type { SqlClient } from './sql-client.js';

export interface SqlConversationStoreOptions {
  backend: 'postgres' | 'pglite';
  client: SqlClient;
  /** Gives up on a statement after this long, so a hung database never hangs a request. */
  queryTimeoutMs: number;
  close: () => Promise<void>;
}

interface MessageRow {
  id: string;
  conversation_id: string;
  role: MessageRole;
  content: string;
  mode: ChatMode | null;
  sources: unknown;
  status: MessageStatus;
  finish_reason: FinishReason | null;
  created_at: Date | string;
  rating?: 'up' | 'down' | null;
}

function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

// Both drivers parse jsonb; anything but an array would be a row written by hand.
/** Answers stored before protocol 2.0 hold `headingPath`: they are read in today's casing. */
function parseSources(value: unknown): SourceRef[] {
  return Array.isArray(value) ? (value.map(upgradeLegacySource) as SourceRef[]) : [];
}

function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    role: row.role,
    content: row.content,
    mode: row.mode,
    sources: parseSources(row.sources),
    status: row.status,
    finishReason: row.finish_reason,
    createdAt: toIso(row.created_at),
    ...(row.rating ? { rating: row.rating } : {}),
  };
}

const ANSWER_STATUSES_FOR_HISTORY: ReadonlySet<MessageStatus> = new Set(['complete', 'interrupted']);

export class SqlConversationStore implements ConversationStore {
  readonly backend: 'postgres' | 'pglite';
  readonly #client: SqlClient;
  readonly #queryTimeoutMs: number;
  readonly #close: () => Promise<void>;
  #closed = false;

  constructor(options: SqlConversationStoreOptions) {
    this.backend = options.backend;
    this.#client = options.client;
    this.#queryTimeoutMs = options.queryTimeoutMs;
    this.#close = options.close;
  }

  /** Runs one database call, bounded in time, with connection failures turned into ConversationStoreUnavailableError. */
  async #run<T>(what: string, work: (client: SqlClient) => Promise<T>, timeoutMs = this.#queryTimeoutMs): Promise<T> {
    if (this.#closed) throw new ConversationStoreUnavailableError('The conversation store has been closed.');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new ConversationStoreUnavailableError(`The conversation database did not answer within ${timeoutMs} ms (${what}).`));
      }, timeoutMs);
    });
    const attempt = work(this.#client);
    // The losing promise may still reject later; keep that from becoming an unhandled rejection.
    attempt.catch(() => undefined);
    try {
      return await Promise.race([attempt, timeout]);
    } catch (error) {
      throw toStoreError(error, this.backend);
    } finally {
      clearTimeout(timer);
    }
  }

  async migrate(): Promise<void> {
    // Creating the schema on a fresh PGlite or a busy Postgres can take longer than one statement.
    await this.#run('migrate', (client) => runMigrations(client), Math.max(this.#queryTimeoutMs, 60_000));
  }

  async createConversation(id: string): Promise<void> {
    await this.#run('create conversation', (client) =>
      client.query('insert into conversations (id) values ($1::uuid) on conflict (id) do nothing', [id]),
    );
  }

  async conversationExists(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.#run('find conversation', (client) =>
      client.query('select 1 as found from conversations where id = $1::uuid', [id]),
    );
    return rows.length > 0;
  }

  async getConversation(id: string): Promise<StoredConversation | null> {
    if (!isUuid(id)) return null;
    return this.#run('read conversation', async (client) => {
      const conversations = await client.query<{ id: string; created_at: Date | string }>(
        'select id, created_at from conversations where id = $1::uuid',
        [id],
      );
      const conversation = conversations[0];
      if (!conversation) return null;
      const rows = await client.query<MessageRow>(
        `select m.id, m.conversation_id, m.role, m.content, m.mode, m.sources, m.status, m.finish_reason, m.created_at,
                f.rating
           from messages m left join feedback f on f.message_id = m.id
          where m.conversation_id = $1::uuid order by m.seq`,
        [id],
      );
      return { id: conversation.id, createdAt: toIso(conversation.created_at), messages: rows.map(toStoredMessage) };
    });
  }

  // jsonb values go in as objects: both drivers serialise them by the parameter's type (a string would be stored as a JSON string).
  async insertMessage(message: NewMessage): Promise<void> {
    await this.#run('insert message', (client) =>
      client.query(
        `insert into messages (id, conversation_id, role, content, mode, sources, status)
         values ($1::uuid, $2::uuid, $3, $4, $5, $6::jsonb, $7)`,
        [
          message.id,
          message.conversationId,
          message.role,
          storableText(message.content),
          message.mode,
          message.sources ?? [],
          message.status,
        ],
      ),
    );
  }

  // The conversation is created by a data-modifying CTE of the same statement: the foreign key is checked at
  // the end of the statement, when it exists. The two message rows are inserted in VALUES order, so the question
  // gets the lower seq and conversations keep reading in order.
  async startTurn(turn: NewTurn): Promise<void> {
    await this.#run('start turn', (client) =>
      client.query(
        `with conversation as (
           insert into conversations (id) select $1::uuid where $2::boolean on conflict (id) do nothing
         )
         insert into messages (id, conversation_id, role, content, mode, status, page_url, page_title)
         values ($3::uuid, $1::uuid, 'user', $4, $5, 'complete', $7, $8),
                ($6::uuid, $1::uuid, 'assistant', '', $5, 'pending', null, null)`,
        [
          turn.conversationId,
          turn.newConversation,
          turn.question.id,
          storableText(turn.question.content),
          turn.mode,
          turn.answerId,
          turn.page ? storableText(turn.page.url) : null,
          turn.page ? storableText(turn.page.title) : null,
        ],
      ),
    );
  }

  async finishMessage(id: string, update: FinishedMessage): Promise<void> {
    await this.#run('finish message', (client) =>
      client.query(
        `update messages
            set content = $2, status = $3, sources = $4::jsonb, finish_reason = $5, usage = $6::jsonb, updated_at = now()
          where id = $1::uuid`,
        [id, storableText(update.content), update.status, update.sources, update.finishReason, update.usage],
      ),
    );
  }

  // The batch goes in as one jsonb array read back as rows, so the statement and its one parameter are the same
  // whatever the batch's size (a prepared statement each driver runs as is). The text is made well-formed first:
  // JSON keeps a lone surrogate as an escape jsonb refuses, where a text parameter would have replaced it.
  async finishMessages(answers: readonly FinishedAnswer[]): Promise<void> {
    if (answers.length === 0) return;
    if (answers.length === 1) return this.finishMessage(answers[0]!.id, answers[0]!.update);
    const rows = answers.map(({ id, update }) => ({
      id,
      content: storableText(update.content).toWellFormed(),
      status: update.status,
      sources: update.sources,
      finish_reason: update.finishReason,
      usage: update.usage,
    }));
    await this.#run('finish messages', (client) =>
      client.query(
        `update messages m
            set content = v.content, status = v.status, sources = v.sources, finish_reason = v.finish_reason,
                usage = v.usage, updated_at = now()
           from jsonb_to_recordset($1::jsonb)
                  as v(id uuid, content text, status text, sources jsonb, finish_reason text, usage jsonb)
          where m.id = v.id`,
        [rows],
      ),
    );
  }

  async saveProgress(id: string, content: string): Promise<void> {
    await this.#run('save answer progress', (client) =>
      client.query(`update messages set content = $2, updated_at = now() where id = $1::uuid and status = 'pending'`, [
        id,
        storableText(content),
      ]),
    );
  }

  async saveProgresses(saves: readonly AnswerProgress[]): Promise<void> {
    if (saves.length === 0) return;
    if (saves.length === 1) return this.saveProgress(saves[0]!.id, saves[0]!.content);
    const rows = saves.map(({ id, content }) => ({ id, content: storableText(content).toWellFormed() }));
    await this.#run('save answers progress', (client) =>
      client.query(
        `update messages m set content = v.content, updated_at = now()
           from jsonb_to_recordset($1::jsonb) as v(id uuid, content text)
          where m.id = v.id and m.status = 'pending'`,
        [rows],
      ),
    );
  }

  async interruptStalePending(staleMs: number, runningIds: readonly string[]): Promise<number> {
    const rows = await this.#run('interrupt stale answers', (client) =>
      client.query<{ id: string }>(
        `update messages
            set status = 'interrupted', finish_reason = 'interrupted', updated_at = now()
          where status = 'pending' and role = 'assistant' and updated_at <= now() - ($1::bigint * interval '1 millisecond')
            and not (id = any($2::uuid[]))
          returning id`,
        [Math.max(0, Math.round(staleMs)), [...runningIds]],
      ),
    );
    return rows.length;
  }

  async recentTurns(conversationId: string, pairs: number): Promise<{ role: 'user' | 'assistant'; content: string }[]> {
    if (pairs <= 0 || !isUuid(conversationId)) return [];
    // Read a little more than needed: failed or pending answers are skipped, with their question.
    const limit = pairs * 4 + 4;
    const rows = await this.#run('read recent turns', (client) =>
      client.query<{ role: MessageRole; content: string; status: MessageStatus }>(
        `select role, content, status from messages
          where conversation_id = $1::uuid and role in ('user', 'assistant')
          order by seq desc limit $2`,
        [conversationId, limit],
      ),
    );
    // The question being answered now has no finished answer yet (its answer row is pending, or not written
    // yet when this read overtakes the turn's insert), so the pairing below leaves it out either way: the
    // history does not depend on whether the turn was stored first.
    const history = rows.reverse();
    const turns: { role: 'user' | 'assistant'; content: string }[][] = [];
    for (let index = 0; index < history.length - 1; index += 1) {
      const question = history[index];
      const answer = history[index + 1];
      if (question?.role !== 'user' || answer?.role !== 'assistant') continue;
      if (!ANSWER_STATUSES_FOR_HISTORY.has(answer.status) || answer.content.trim() === '') continue;
      turns.push([
        { role: 'user', content: question.content },
        { role: 'assistant', content: answer.content },
      ]);
      index += 1;
    }
    return turns.slice(-pairs).flat();
  }

  async addFeedback(feedback: NewFeedback): Promise<'stored' | 'unknown_message'> {
    if (!isUuid(feedback.messageId)) return 'unknown_message';
    if (feedback.rating === null) {
      // One statement: remove the rating, and say whether the answer exists at all.
      const answers = await this.#run('remove feedback', (client) =>
        client.query(
          `with removed as (delete from feedback where message_id = $1::uuid)
           select id from messages where id = $1::uuid and role = 'assistant'`,
          [feedback.messageId],
        ),
      );
      return answers.length > 0 ? 'stored' : 'unknown_message';
    }
    const rows = await this.#run('store feedback', (client) =>
      client.query(
        `insert into feedback (message_id, rating, reason)
         select id, $2, $3 from messages where id = $1::uuid and role = 'assistant'
         on conflict (message_id) do update
           set rating = excluded.rating, reason = excluded.reason, updated_at = now()
         returning message_id`,
        [feedback.messageId, feedback.rating, feedback.reason === undefined ? null : storableText(feedback.reason)],
      ),
    );
    return rows.length > 0 ? 'stored' : 'unknown_message';
  }

  async deleteConversation(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    // Messages, feedback and shares go with it (on delete cascade).
    const rows = await this.#run('delete conversation', (client) =>
      client.query('delete from conversations where id = $1::uuid returning id', [id]),
    );
    return rows.length > 0;
  }

  async createShare(conversationId: string, shareId: string): Promise<boolean> {
    if (!isUuid(conversationId)) return false;
    const rows = await this.#run('create share', (client) =>
      client.query(
        `insert into conversation_shares (id, conversation_id)
         select $2, id from conversations where id = $1::uuid
         returning id`,
        [conversationId, shareId],
      ),
    );
    return rows.length > 0;
  }

  async getSharedConversation(shareId: string): Promise<StoredConversation | null> {
    const rows = await this.#run('read share', (client) =>
      client.query<{ conversation_id: string }>('select conversation_id from conversation_shares where id = $1', [shareId]),
    );
    const conversationId = rows[0]?.conversation_id;
    return conversationId === undefined ? null : this.getConversation(conversationId);
  }

  async deleteConversationsOlderThan(cutoff: Date, limit: number): Promise<number> {
    // A conversation is old when it was started before the cutoff and nothing was written to it since.
    // At most `limit` per statement, so a first sweep over a large table never outlasts the query timeout.
    const rows = await this.#run('delete old conversations', (client) =>
      client.query(
        `delete from conversations where id in (
           select c.id from conversations c
            where c.created_at < $1::timestamptz
              and not exists (select 1 from messages m where m.conversation_id = c.id and m.updated_at >= $1::timestamptz)
            limit $2)
          returning id`,
        [cutoff.toISOString(), limit],
      ),
    );
    return rows.length;
  }

  async readInsights(query: InsightsQuery): Promise<InsightsRows> {
    return this.#run('read insights', (client) => readInsightsRows(client, query));
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.#run('ping', (client) => client.query('select 1 as ok'), timeoutMs);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#close();
  }
}

/**
 * Postgres text cannot hold U+0000 (both drivers fail with "invalid byte
 * sequence"). A NUL typed or pasted into a question carries no meaning, so it
 * is dropped rather than losing the whole message.
 */
export function storableText(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
}
