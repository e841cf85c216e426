/**
 * The conversation schema, as an ordered list of versioned migrations shared by
 * Postgres and PGlite. Never edit a migration that has shipped: append a new one.
 * Each statement runs on its own (no multi-statement strings) so both drivers
 * can run it through the extended protocol.
 */
import type { SqlClient } from './sql-client.js';

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'conversations, messages and feedback',
    statements: [
      `create table if not exists conversations (
        id uuid primary key,
        created_at timestamptz not null default now()
      )`,
      // seq orders messages even when two share a timestamp (now() is fixed within a transaction).
      `create table if not exists messages (
        id uuid primary key,
        seq bigint generated always as identity,
        conversation_id uuid not null references conversations (id) on delete cascade,
        role text not null check (role in ('user', 'assistant', 'system')),
        content text not null default '',
        mode text check (mode in ('general', 'selection')),
        sources jsonb not null default '[]'::jsonb,
        status text not null check (status in ('pending', 'complete', 'interrupted', 'error')),
        finish_reason text,
        usage jsonb,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
      `create index if not exists messages_conversation_created_idx on messages (conversation_id, created_at)`,
      `create index if not exists messages_conversation_seq_idx on messages (conversation_id, seq)`,
      `create table if not exists feedback (
        message_id uuid primary key references messages (id) on delete cascade,
        rating text not null check (rating in ('up', 'down')),
        reason text,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`,
    ],
  },
  {
    version: 2,
    name: 'conversation shares and retention',
    statements: [
      // A share id is a random token of its own (never the conversation id), so a shared link gives
      // read access only: whoever holds it cannot continue, rate or delete the conversation.
      `create table if not exists conversation_shares (
        id text primary key,
        conversation_id uuid not null references conversations (id) on delete cascade,
        created_at timestamptz not null default now()
      )`,
      `create index if not exists conversation_shares_conversation_idx on conversation_shares (conversation_id)`,
      // The retention sweep looks at conversations older than the cutoff first, then at their latest message.
      `create index if not exists conversations_created_idx on conversations (created_at)`,
    ],
  },
  {
    version: 3,
    name: 'the page a question was asked on; indexes for the insights report',
    statements: [
      `alter table messages add column if not exists page_url text`,
      `alter table messages add column if not exists page_title text`,
      // Questions per day and outcomes read only answer rows in the period: an index-only scan with these columns.
      `create index if not exists messages_answers_created_idx on messages (created_at) include (status, finish_reason) where role = 'assistant'`,
      // The most asked questions and selection use by page read only question rows in the period.
      `create index if not exists messages_questions_created_idx on messages (created_at) include (mode) where role = 'user'`,
      // Down-voted answers: the few 'down' ratings first, then their answers by primary key.
      `create index if not exists feedback_rating_idx on feedback (rating, updated_at)`,
    ],
  },
  {
    version: 4,
    name: 'rate limit counters shared by the server processes (WORKERS > 1)',
    statements: [
      // Unlogged: counters of a one-minute window are not worth a WAL write each, and losing them in a crash is harmless.
      `create unlogged table if not exists rate_limit_hits (
        key text primary key,
        hits integer not null,
        window_ends_at timestamptz not null
      )`,
    ],
  },
  {
    version: 5,
    name: 'indexes for the refused questions and the selection pages of the insights report',
    statements: [
      // Refused answers are about a tenth of the answers: read them alone instead of scanning every message
      // of the period (EXPLAIN ANALYZE at 100,000 questions: a bitmap scan of 8,300 rows for a 200,000-row scan).
      `create index if not exists messages_refused_created_idx on messages (created_at) where role = 'assistant' and finish_reason = 'no_answer'`,
      // Highlight questions likewise (about one question in ten). No included columns: a page URL and title
      // could outgrow a btree entry, and the heap fetch of a few thousand rows is cheap.
      `create index if not exists messages_selection_created_idx on messages (created_at) where role = 'user' and mode = 'selection'`,
    ],
  },
];

// Same key on every replica so that two servers starting together migrate one after the other.
const MIGRATION_LOCK_KEY = 'docs-chat:conversation-migrations';

/** Applies the migrations not yet recorded in schema_migrations, in one transaction, under an advisory lock. */
export async function runMigrations(client: SqlClient, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return client.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK_KEY]);
    await tx.query(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
    const rows = await tx.query<{ version: number }>('select version from schema_migrations');
    const applied = new Set(rows.map((row) => Number(row.version)));
    const newlyApplied: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [migration.version, migration.name]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
