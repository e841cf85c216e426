/** @jest-environment node */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { startSearchTestServers, type SearchTestServers, type StaticIndexFixture } from '../test-doubles/search-servers.js';
import { createSearchClient, forgetServerFailures, SERVER_RETRY_AFTER_MS, SERVER_SEARCH_TIMEOUT_MS } from './search-client.js';
import { SearchUnavailableError } from './search-results.js';
import { forgetLoadedIndexes } from './static-index-loader.js';

let servers: SearchTestServers;
let clock: number;

async function start(index: StaticIndexFixture = { kind: 'lighthouse' }): Promise<void> {
  servers = await startSearchTestServers(index);
}

function client(options: { server?: boolean; staticIndex?: boolean } = {}) {
  return createSearchClient({
    serverUrl: options.server === false ? null : servers.serverUrl,
    manifestUrl: options.staticIndex === false ? null : servers.manifestPath,
    fetch: servers.fetch,
    now: () => clock,
  });
}

beforeEach(() => {
  clock = 1_000_000;
  forgetServerFailures();
  forgetLoadedIndexes();
});

afterEach(async () => {
  await servers?.close();
});

describe('search, server first', () => {
  it('shows the server results while the server answers, without downloading the static index', async () => {
    await start();
    const outcome = await client().search('trim the wick');
    expect(outcome.source).toBe('server');
    expect(outcome.hits.map((hit) => hit.url)).toEqual(['/handbook/docs/guides/lamp#trimming-the-wick', '/handbook/docs/guides/lamp']);
    expect(outcome.hits[0]?.headings.map((heading) => heading.text)).toEqual(['Trimming the wick']);
    // The server sends no match positions: the query's own words are marked.
    expect(outcome.hits[0]?.snippet.highlights.map(([start, end]) => outcome.hits[0]?.snippet.text.slice(start, end))).toEqual([
      'Trim',
      'wick',
    ]);
    expect(servers.serverRequests).toEqual(['/search?q=trim%20the%20wick&k=10']);
    expect(servers.siteRequests).toEqual([]);
  });

  it('searches the static index in the browser when the server is down, and leaves the server alone for a while', async () => {
    await start();
    await servers.stopServer();
    const search = client();
    const outcome = await search.search('trim the wick');
    expect(outcome.source).toBe('static');
    expect(outcome.hits[0]?.url).toBe('/handbook/docs/guides/lamp#trimming-the-wick');
    await search.search('fog signal');
    expect(servers.siteRequests).toEqual(['/docs-chat/search-manifest.json', '/docs-chat/search-index.0123456789ab.json']);
  });

  it('asks the server again once the wait after a failure is over', async () => {
    await start();
    servers.answerSearchWith({ status: 503, json: { error: { code: 'service_busy', message: 'Busy.' } } }, {});
    const search = client();
    expect((await search.search('trim the wick')).source).toBe('static');
    expect((await search.search('trim the wick')).source).toBe('static');
    expect(servers.serverRequests).toHaveLength(1);
    clock += SERVER_RETRY_AFTER_MS;
    expect((await search.search('trim the wick')).source).toBe('server');
  });

  it(`answers from the static index when the server takes longer than ${SERVER_SEARCH_TIMEOUT_MS} ms`, async () => {
    await start();
    servers.answerSearchWith({ delayMs: SERVER_SEARCH_TIMEOUT_MS + 700 });
    const started = performance.now();
    const outcome = await client().search('compressor');
    expect(outcome.source).toBe('static');
    expect(outcome.hits[0]?.url).toBe('/handbook/docs/guides/fog-signal#starting-the-compressor');
    expect(performance.now() - started).toBeLessThan(SERVER_SEARCH_TIMEOUT_MS + 600);
  });

  it.each<[string, { status?: number; json?: unknown }]>([
    ['a server error', { status: 500, json: { error: { code: 'internal_error', message: 'Something went wrong.' } } }],
    ['rate limiting', { status: 429, json: { error: { code: 'rate_limited', message: 'Slow down.' } } }],
    ['something that is not search results', { json: { status: 'ok' } }],
  ])('falls back quietly on %s', async (_case, answer) => {
    await start();
    servers.answerSearchWith(answer);
    expect((await client().search('paraffin')).source).toBe('static');
  });

  it('keeps asking the server after it refused one query as invalid', async () => {
    await start();
    servers.answerSearchWith({ status: 400, json: { error: { code: 'invalid_request', message: 'Bad query.' } } }, {});
    const search = client();
    expect((await search.search('paraffin')).source).toBe('static');
    expect((await search.search('trim the wick')).source).toBe('server');
  });

  it('tries the static index when the server finds nothing for a word still being typed', async () => {
    await start();
    servers.answerSearchWith({ json: { query: 'compres', results: [], out_of_scope: true, confidence: 0 } });
    const outcome = await client().search('compres');
    expect(outcome.source).toBe('static');
    expect(outcome.hits[0]?.url).toBe('/handbook/docs/guides/fog-signal#starting-the-compressor');
  });

  it('searches in the browser only when no server is configured', async () => {
    await start();
    expect((await client({ server: false }).search('paraffin')).source).toBe('static');
    expect(servers.serverRequests).toEqual([]);
  });

  it('sends the server at most 512 characters of a very long query', async () => {
    await start();
    await client().search(`wick ${'x'.repeat(4000)}`);
    expect(decodeURIComponent(servers.serverRequests[0] ?? '').length).toBeLessThan(600);
  });
});

describe('search when the static index cannot be used and the server is down', () => {
  it.each<[string, StaticIndexFixture, RegExp]>([
    ['missing', { kind: 'missing' }, /missing \(HTTP 404\)/],
    ['cut short', { kind: 'file', name: 'truncated-index.json' }, /damaged/],
    ['from another version of the plugin', { kind: 'file', name: 'index-of-another-version.json' }, /version 2; this page reads version 1/],
    ['something else than an index', { kind: 'file', name: 'not-search-results.json' }, /not a docs-chat search index/],
  ])('fails with SearchUnavailableError when the index is %s', async (_case, index, message) => {
    await start(index);
    await servers.stopServer();
    const failure = client().search('paraffin');
    await expect(failure).rejects.toThrow(SearchUnavailableError);
    await expect(failure).rejects.toThrow(message);
  });

  it('fails with SearchUnavailableError when the site wrote no index', async () => {
    await start();
    await servers.stopServer();
    await expect(client({ staticIndex: false }).search('paraffin')).rejects.toThrow(SearchUnavailableError);
  });
});
