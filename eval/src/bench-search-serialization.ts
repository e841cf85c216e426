/**
 * Response serialization benchmark (not a test):
 * `node --import tsx eval/src/bench-search-serialization.ts [--json]`
 *
 * Decides whether `GET /search` keeps its response schema. Two Fastify apps
 * answer the same realistic search bodies (k = 5 and k = 20, excerpts of about
 * 300 characters, headings, site scope), one serializing with the protocol's
 * `searchResponseSchema` (fast-json-stringify), one with JSON.stringify.
 * Reported: the serializer alone (µs per body) and whole requests through
 * `app.inject` (µs per request, routing and hooks included), each the median
 * of several rounds, run alternately so a busy machine slows both alike.
 */
import { createRequire } from 'node:module';
import type { FastifyInstance } from '../../packages/server/node_modules/fastify/fastify.js';
import { searchResponseSchema, type SearchResponse } from '../../packages/protocol/src/chat-stream.js';

// The server's own fastify, and the fast-json-stringify it compiles response schemas with.
const requireFromServer = createRequire(new URL('../../packages/server/package.json', import.meta.url));
const fastifyPath = requireFromServer.resolve('fastify');
const Fastify = requireFromServer('fastify') as typeof import('../../packages/server/node_modules/fastify/fastify.js').default;
const fastJson = createRequire(fastifyPath)('fast-json-stringify') as (schema: object) => (value: unknown) => string;

const ROUNDS = 7;
const SERIALIZE_CALLS = 20_000;
const REQUESTS = 2_000;

const WORDS =
  'the ingest reads every page splits it into sections embeds them and stores vectors beside the text so a question finds'.split(' ');

function sentence(length: number, seed: number): string {
  const words: string[] = [];
  for (let index = 0; words.join(' ').length < length; index += 1) words.push(WORDS[(seed * 7 + index * 3) % WORDS.length]!);
  return words.join(' ');
}

function searchBody(k: number): SearchResponse {
  return {
    query: 'how do I re-run the ingest after changing pages',
    results: Array.from({ length: k }, (_unused, index) => ({
      rank: index + 1,
      score: 1.7 - index * 0.05,
      file: `site:default:current:en/guides/page-${index}.md`,
      title: `Guide ${index}: ${sentence(24, index)}`,
      heading: index % 3 === 0 ? null : sentence(30, index + 1),
      heading_path: [`Guide ${index}`, sentence(30, index + 1), sentence(20, index + 2)],
      url: `/docs/next/guides/page-${index}#${sentence(20, index).replace(/ /g, '-')}`,
      excerpt: `${sentence(296, index)}…`,
      version: 'current',
      locale: 'en',
    })),
    out_of_scope: false,
    confidence: 0.91,
    scope: { version: 'current', version_label: 'Next', locale: 'en', ignored: [] },
  };
}

async function appFor(body: SearchResponse, withSchema: boolean): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/search', withSchema ? { schema: { response: { 200: searchResponseSchema } } } : {}, async () => body);
  await app.ready();
  return app;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const rows: { k: number; serializer: string; serializeMicros: number; requestMicros: number; bytes: number }[] = [];
  for (const k of [5, 20]) {
    const body = searchBody(k);
    const apps = { schema: await appFor(body, true), stringify: await appFor(body, false) };
    const serializers = { schema: fastJson(searchResponseSchema), stringify: (value: unknown) => JSON.stringify(value) };
    const same = JSON.parse(serializers.schema(body)) as unknown;
    if (JSON.stringify(same) !== JSON.stringify(body)) throw new Error('the schema serializer changed the body; fix searchResponseSchema');

    const serializeTimes: Record<'schema' | 'stringify', number[]> = { schema: [], stringify: [] };
    const requestTimes: Record<'schema' | 'stringify', number[]> = { schema: [], stringify: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const name of ['schema', 'stringify'] as const) {
        const serialize = serializers[name];
        let started = performance.now();
        for (let call = 0; call < SERIALIZE_CALLS; call += 1) serialize(body);
        serializeTimes[name].push(((performance.now() - started) * 1000) / SERIALIZE_CALLS);

        started = performance.now();
        for (let request = 0; request < REQUESTS; request += 1) await apps[name].inject({ method: 'GET', url: '/search' });
        requestTimes[name].push(((performance.now() - started) * 1000) / REQUESTS);
      }
    }
    for (const name of ['schema', 'stringify'] as const) {
      rows.push({
        k,
        serializer: name,
        serializeMicros: median(serializeTimes[name]),
        requestMicros: median(requestTimes[name]),
        bytes: Buffer.byteLength(JSON.stringify(body)),
      });
    }
    await apps.schema.close();
    await apps.stringify.close();
  }
  if (json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  for (const row of rows) {
    process.stdout.write(
      `k=${String(row.k).padEnd(3)} ${row.serializer.padEnd(10)} serialize ${row.serializeMicros.toFixed(1).padStart(6)} µs   request ${row.requestMicros.toFixed(1).padStart(6)} µs   (${row.bytes} bytes)\n`,
    );
  }
}

await main();
