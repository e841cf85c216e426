/**
 * Test support for suites that run against a real Postgres when one is around:
 * finds it, and gives each run a schema of its own so parallel runs never clash.
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import postgres from 'postgres';

export const LOCAL_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

function portAnswers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** TEST_DATABASE_URL, else the local Postgres when 127.0.0.1:5432 answers, else null. */
export async function findTestPostgres(): Promise<string | null> {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  if (await portAnswers('127.0.0.1', 5432, 500)) return LOCAL_TEST_POSTGRES_URL;
  return null;
}

export const NO_TEST_POSTGRES_REASON = 'TEST_DATABASE_URL is not set and nothing answers on 127.0.0.1:5432';

export interface TestSchema {
  /** The database URL with `search_path` set to the new schema. */
  url: string;
  schema: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

/** Creates an empty schema with a random name. */
export async function createTestSchema(databaseUrl: string): Promise<TestSchema> {
  const schema = `docs_chat_test_${randomUUID().replaceAll('-', '')}`;
  const admin = postgres(databaseUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create schema ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('search_path', schema);
  return {
    url: url.toString(),
    schema,
    drop: async () => {
      try {
        await admin.unsafe(`drop schema if exists ${schema} cascade`);
      } finally {
        await admin.end();
      }
    },
  };
}
