/**
 * The few things the conversation store needs from a database connection, so
 * that one implementation of the store runs the same SQL on Postgres (the
 * `postgres` driver) and on embedded PGlite.
 */
export interface SqlClient {
  /** Runs one statement with `$n` parameters and returns its rows. */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs `work` in a transaction on one connection; rolls back when it throws. */
  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
}
