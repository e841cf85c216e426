/**
 * A store for @fastify/rate-limit (its documented `store` option) that keeps
 * the counters in PostgreSQL, so that a reader's limit holds across the server
 * processes of WORKERS > 1. One statement per counted request: insert the
 * counter, or add one to it, starting a new window when the old one ended.
 * With one process the plugin's in-memory store is used instead (no round trip).
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import postgres from 'postgres';
import type { SqlClient } from '../conversations/sql-client.js';

/** One in this many counted requests also removes counters whose window ended long ago. */
const SWEEP_EVERY = 1000;
/** Ended windows kept for this long before a sweep removes them. */
const SWEEP_AFTER_MS = 3_600_000;

const INCREMENT = `insert into rate_limit_hits as counter (key, hits, window_ends_at)
  values ($1, 1, clock_timestamp() + $2::integer * interval '1 millisecond')
  on conflict (key) do update set
    hits = case when counter.window_ends_at <= clock_timestamp() then 1 else counter.hits + 1 end,
    window_ends_at = case when counter.window_ends_at <= clock_timestamp()
      then clock_timestamp() + $2::integer * interval '1 millisecond' else counter.window_ends_at end
  returning hits, greatest(0, ceil(extract(epoch from (window_ends_at - clock_timestamp())) * 1000))::integer as ttl_ms`;

const SWEEP = `delete from rate_limit_hits where window_ends_at < clock_timestamp() - $1::integer * interval '1 millisecond'`;

/** The store class the plugin instantiates; every route gets a child whose keys start with its method and path. */
export function postgresRateLimitStore(client: Pick<SqlClient, 'query'>, onError: (error: unknown) => void): FastifyRateLimitStoreCtor {
  let counted = 0;
  class PostgresRateLimitStore implements FastifyRateLimitStore {
    readonly #prefix: string;

    constructor(_options?: unknown, prefix = '') {
      this.#prefix = prefix;
    }

    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      counted += 1;
      if (counted % SWEEP_EVERY === 0) void client.query(SWEEP, [SWEEP_AFTER_MS]).catch(onError);
      client.query<{ hits: number; ttl_ms: number }>(INCREMENT, [`${this.#prefix}${key}`, Math.round(timeWindow)]).then(
        (rows) => callback(null, { current: Number(rows[0]?.hits ?? 1), ttl: Number(rows[0]?.ttl_ms ?? timeWindow) }),
        (error: unknown) => {
          onError(error);
          callback(error instanceof Error ? error : new Error(String(error)));
        },
      );
    }

    // The plugin passes the route as `routeInfo` (as its Redis store reads it), despite the declared type.
    child(options: object): FastifyRateLimitStore {
      const route = (options as { routeInfo?: { method?: string | string[]; url?: string } }).routeInfo ?? {};
      const method = Array.isArray(route.method) ? route.method.join(',') : (route.method ?? '');
      return new PostgresRateLimitStore(undefined, `${method} ${route.url ?? ''} `);
    }
  }
  return PostgresRateLimitStore;
}

/** A small connection pool of its own for the counters, so they never wait behind conversation writes. */
export function createRateLimitClient(databaseUrl: string): Pick<SqlClient, 'query'> & { close(): Promise<void> } {
  const sql = postgres(databaseUrl, {
    max: 4,
    idle_timeout: 30,
    onnotice: () => undefined,
    ...(/[?&]connect_timeout=/.test(databaseUrl) ? {} : { connect_timeout: 5 }),
  });
  return {
    async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
      // Prepared once per connection: each count is then one Bind/Execute round trip.
      return [...(await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true }))] as Row[];
    },
    close: () => sql.end({ timeout: 2 }),
  };
}
