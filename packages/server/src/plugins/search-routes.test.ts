import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestIndex, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';
import { excerpt, type SearchResponseBody } from './search-routes.js';

/** Building the index and an embedded database can take a while on a busy machine. */
const SETUP_TIMEOUT_MS = 120_000;

let index: TestIndex;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex();
  server = await startTestServer({ index });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await index?.remove();
});

describe('GET /search', () => {
  it('returns the best chunks with scores, excerpts and section URLs', async () => {
    const response = await fetch(`${server.url}/search?q=${encodeURIComponent('persist the state across page reloads')}&k=3`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as SearchResponseBody;
    expect(body.query).toBe('persist the state across page reloads');
    expect(body.results.length).toBeGreaterThan(0);
    expect(body.results.length).toBeLessThanOrEqual(3);
    const best = body.results[0]!;
    expect(best.rank).toBe(1);
    expect(best.file).toBe('guides/configuring-the-harbor.md');
    expect(best.url).toMatch(/^\/docs\/guides\/configuring-the-harbor#persisting-the-state$/);
    expect(best.excerpt).toMatch(/localStorage/);
    expect(body.results.map((result) => result.score)).toEqual([...body.results.map((result) => result.score)].sort((a, b) => b - a));
    expect(body.out_of_scope).toBe(false);
  });

  it('adds with explain=true the words searched for and the out-of-scope signals, and nothing without it', async () => {
    const question = encodeURIComponent('persist the state across page reloads');
    const plain = (await (await fetch(`${server.url}/search?q=${question}`)).json()) as SearchResponseBody;
    expect(plain.explanation).toBeUndefined();
    const explained = (await (await fetch(`${server.url}/search?q=${question}&explain=true`)).json()) as SearchResponseBody;
    expect(explained.results).toEqual(plain.results);
    expect(explained.explanation?.questionTerms).toEqual(['persist', 'state', 'across', 'page', 'reload']);
    expect(explained.explanation?.scope).toMatchObject({ missingNames: [], lonelyNames: [] });
    // The thresholds fitted on the index at ingest, which the question clears.
    expect(explained.explanation?.scope.minVocabulary).toBeGreaterThan(0);
    expect(explained.explanation?.scope.vocabulary).toBeGreaterThan(explained.explanation!.scope.minVocabulary);
  });

  it('returns five results by default', async () => {
    const body = (await (await fetch(`${server.url}/search?q=harbor`)).json()) as SearchResponseBody;
    expect(body.results).toHaveLength(5);
  });

  it.each([
    ['no query', '/search', /"q" is required — add the text to search for as "q"/],
    ['a query of spaces', '/search?q=%20%20', /"q" must hold the text to search for/],
    ['a query sent twice', '/search?q=harbor&q=boats', /"q" must hold the text to search for/],
    ['k out of range', '/search?q=harbor&k=50', /"k" must be a whole number from 1 to 20/],
    ['k that is not a number', '/search?q=harbor&k=many', /"k" must be a whole number/],
    ['a query over 4,000 characters', `/search?q=${'a'.repeat(4001)}`, /limit is 4000/],
    ['explain that is not true or false', '/search?q=harbor&explain=yes', /"explain" must be true or false/],
  ])('answers %s with 400 and what to change', async (_name, path, expected) => {
    const response = await fetch(`${server.url}${path}`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; details: string[] } };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details.join(' ')).toMatch(expected);
  });

  it('answers 503 search_unavailable when the index cannot be read', async () => {
    const manifest = path.join(index.dataDir, 'index', 'docusaurus-book', 'manifest.json');
    const original = await readFile(manifest, 'utf8');
    try {
      await writeFile(manifest, 'not json');
      // A question not asked before, so the answer cannot come from the retrieval cache.
      const response = await fetch(`${server.url}/search?q=${encodeURIComponent('how are currents merged')}`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('search_unavailable');
      expect(body.error.message).not.toMatch(/manifest|\/tmp\//);
    } finally {
      await writeFile(manifest, original);
    }
  });

  it('cuts long excerpts on a word boundary', () => {
    const long = 'word '.repeat(200);
    const cut = excerpt(long);
    expect(cut.length).toBeLessThanOrEqual(301);
    expect(cut.endsWith('word…')).toBe(true);
    expect(excerpt('  short\n text ')).toBe('short text');
  });
});
