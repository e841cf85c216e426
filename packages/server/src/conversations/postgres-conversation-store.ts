/** The conversation store on a Postgres server, through the `postgres` driver. */
import postgres from 'postgres';
import type { ConversationStore } from './conversation-store.js';
import type { SqlClient } from './sql-client.js';
import { SqlConversationStore } from './sql-conversation-store.js';

export interface PostgresConversationStoreOptions {
  databaseUrl: string;
  /** Seconds to wait for a connection before failing (default 5, or `connect_timeout` from the URL). */
  connectTimeoutSeconds?: number;
  queryTimeoutMs?: number;
  /** Connections in the pool (default 10). */
  maxConnections?: number;
}

type Sql = postgres.Sql | postgres.TransactionSql;
type Parameters = postgres.ParameterOrJSON<never>[];

function sqlClient(sql: Sql): SqlClient {
  return {
    async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
      // Named prepared statements: the store runs a handful of fixed statements, so after the first use each
      // one is a single Bind/Execute round trip instead of Parse/Describe, then Bind/Execute (two writes).
      const rows = await sql.unsafe(text, params as Parameters, { prepare: true });
      return [...rows] as Row[];
    },
    async transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
      // A transaction inside a transaction would need savepoints; the store never nests them.
      if (!('begin' in sql)) return work(sqlClient(sql));
      return (await sql.begin((tx) => work(sqlClient(tx)))) as T;
    },
  };
}

/** The driver settings every store connection uses; `max` is the pool size. */
export function driverSettings(max: number): postgres.Options<Record<string, never>> {
  return {
    max,
    // Idle connections are dropped, so a restarted server is met with fresh connections.
    idle_timeout: 30,
    // Postgres notices ("relation already exists, skipping") are not worth a log line each start.
    onnotice: () => undefined,
    // The driver waits longer and longer between reconnection attempts (up to 20 s by default); cap it at 2 s
    // so the store is back within a moment of the database.
    backoff: (attempts: number) => (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** attempts, 2),
  };
}

/** The store over a driver connection pool; `close` runs after the pool has ended. */
export function storeOverDriver(
  sql: postgres.Sql,
  options: { backend: 'postgres' | 'pglite'; queryTimeoutMs?: number; afterClose?: () => Promise<void> },
): ConversationStore {
  return new SqlConversationStore({
    backend: options.backend,
    client: sqlClient(sql),
    queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
    // In-flight statements get 2 s to finish (an answer being saved), then the connections are closed.
    close: async () => {
      try {
        await sql.end({ timeout: 2 });
      } finally {
        await options.afterClose?.();
      }
    },
  });
}

export function createPostgresConversationStore(options: PostgresConversationStoreOptions): ConversationStore {
  const settings = driverSettings(options.maxConnections ?? 10);
  // A short connect timeout turns "database down" into a quick, clear error instead of a hung request;
  // the URL may still set its own.
  // (Matched as text: a multi-host URL such as postgres://a:5432,b:5432/db is valid for the driver but not for `new URL`.)
  if (!/[?&]connect_timeout=/.test(options.databaseUrl)) settings.connect_timeout = options.connectTimeoutSeconds ?? 5;
  const sql = postgres(options.databaseUrl, settings);
  return storeOverDriver(sql, {
    backend: 'postgres',
    ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
  });
}
