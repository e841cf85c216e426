import type { ChatJsonResponse, ChatStreamEvent } from '@docs-chat/core/protocol';
import { createTestIndex, FIXTURE_SITE_DIR, postChat, startTestServer, type TestIndex, type TestServer } from '../testing/test-server.js';
import type { SearchResponseBody } from './search-routes.js';

// Issue 13: on an index of a whole site, search and chat keep to the reader's version and locale.

const SETUP_TIMEOUT_MS = 120_000;

let index: TestIndex;
let server: TestServer;

beforeAll(async () => {
  index = await createTestIndex({ siteDir: FIXTURE_SITE_DIR });
  server = await startTestServer({ index, env: { RATE_LIMIT_MAX: '1000' } });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await index?.remove();
});

async function search(query: string): Promise<SearchResponseBody> {
  const response = await fetch(`${server.url}/search?${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as SearchResponseBody;
}

function eventOf<T extends ChatStreamEvent['type']>(events: ChatStreamEvent[], type: T): Extract<ChatStreamEvent, { type: T }> | undefined {
  return events.find((event) => event.type === type) as Extract<ChatStreamEvent, { type: T }> | undefined;
}

describe('GET /search on a whole site', () => {
  it('searches the version and locale asked for, and only them', async () => {
    const old = await search('q=how+long+does+a+rendered+page+stay+cached&version=1.0&locale=en');
    expect(old.results.length).toBeGreaterThan(0);
    expect(old.results.every((result) => result.version === '1.0' && result.locale === 'en')).toBe(true);
    expect(old.results[0]?.url).toBe('/docs/caching#setting-the-cache-lifetime');
    expect(old.scope).toEqual({ version: '1.0', version_label: '1.0', locale: 'en', ignored: [] });
    const next = await search('q=how+long+does+a+rendered+page+stay+cached&version=current&locale=en');
    expect(next.results.every((result) => result.version === 'current')).toBe(true);
    expect(next.results[0]?.url).toBe('/docs/next/caching#setting-the-cache-lifetime');
  });

  it('searches the last released version in the default locale when nothing is asked', async () => {
    const body = await search('q=export+documents');
    expect(body.scope).toMatchObject({ version: '1.0', locale: 'en' });
    expect(body.results.every((result) => result.version === '1.0' && result.locale === 'en')).toBe(true);
  });

  it('cites untranslated pages in the default language with a note, translated ones without', async () => {
    const body = await search('q=export+paper+size&version=current&locale=fr&k=10');
    const exporting = body.results.find((result) => result.url.startsWith('/fr/docs/next/exporting'));
    expect(exporting).toMatchObject({ locale: 'fr', fallback_locale: 'en' });
    const caching = await search('q=cache.ttl+quillmark.toml&version=current&locale=fr');
    expect(caching.results[0]).toMatchObject({ url: '/fr/docs/next/caching#régler-la-durée-du-cache', locale: 'fr' });
    expect(caching.results[0]?.fallback_locale).toBeUndefined();
  });

  it('ignores a version the index does not hold and says so', async () => {
    const body = await search('q=export+documents&version=7.0');
    expect(body.scope?.ignored).toEqual(['version "7.0" is not in the index (it holds current, 1.0)']);
    expect(body.scope?.version).toBe('1.0');
  });

  it('refuses a version or locale that is not a plain name', async () => {
    const response = await fetch(`${server.url}/search?q=export&version=${encodeURIComponent('../x y')}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { details: string[] } }).error.details[0]).toContain('"version" must be a name like "2.0"');
  });
});

describe('POST /chat on a whole site', () => {
  it("answers from the reader's version and locale, and says which", async () => {
    const reply = await postChat(server.url, {
      message: 'How do I set the cache lifetime?',
      mode: 'general',
      version: 'current',
      locale: 'en',
    });
    expect(reply.status).toBe(200);
    const sources = eventOf(reply.events, 'sources');
    expect(sources?.scope).toEqual({ version: 'current', version_label: 'Next', locale: 'en' });
    expect(sources?.sources.length).toBeGreaterThan(0);
    expect(sources?.sources.every((source) => source.version === 'current' && source.locale === 'en')).toBe(true);
    expect(reply.events.some((event) => event.type === 'warning' && event.code === 'other_version')).toBe(false);
  });

  it('answers a question about another version from that version, and says so', async () => {
    const reply = await postChat(server.url, {
      message: 'How did I set the cache lifetime in version 1.0?',
      mode: 'general',
      version: 'current',
      locale: 'en',
    });
    const sources = eventOf(reply.events, 'sources');
    expect(sources?.scope).toEqual({ version: '1.0', version_label: '1.0', locale: 'en', reader_version: 'current' });
    expect(sources?.sources.every((source) => source.version === '1.0')).toBe(true);
    const warning = reply.events.find((event) => event.type === 'warning' && event.code === 'other_version');
    expect(warning).toMatchObject({ message: 'This answer comes from the docs for version 1.0, not the version you are reading (Next).' });
  });

  it('gives the same scope and warning to clients that ask for one JSON answer', async () => {
    const response = await fetch(`${server.url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        message: 'How did I set the cache lifetime in version 1.0?',
        mode: 'general',
        version: 'current',
        locale: 'en',
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as ChatJsonResponse;
    expect(body.scope).toEqual({ version: '1.0', version_label: '1.0', locale: 'en', reader_version: 'current' });
    expect(body.warnings).toEqual([
      { code: 'other_version', message: 'This answer comes from the docs for version 1.0, not the version you are reading (Next).' },
    ]);
    const same = await fetch(`${server.url}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message: 'How do I set the cache lifetime?', mode: 'general', version: 'current', locale: 'en' }),
    });
    expect(((await same.json()) as ChatJsonResponse).warnings).toEqual([]);
  });

  it("marks cited pages that are not translated into the reader's locale", async () => {
    const reply = await postChat(server.url, {
      message: 'How do I choose the paper size when exporting?',
      mode: 'general',
      version: 'current',
      locale: 'fr',
    });
    const sources = eventOf(reply.events, 'sources')?.sources ?? [];
    expect(sources.find((source) => source.url.startsWith('/fr/docs/next/exporting'))).toMatchObject({
      locale: 'fr',
      fallback_locale: 'en',
    });
  });

  it('leaves selection mode as it was: no search, no scope', async () => {
    const reply = await postChat(server.url, {
      message: 'Explain this',
      mode: 'selection',
      context: 'Set cache.ttl in quillmark.toml.',
      version: '1.0',
      locale: 'fr',
    });
    expect(reply.status).toBe(200);
    expect(eventOf(reply.events, 'sources')).toBeUndefined();
  });

  it('refuses a malformed version in the body', async () => {
    const reply = await postChat(server.url, { message: 'How do I export?', mode: 'general', version: 12 });
    expect(reply.status).toBe(400);
    expect((reply.json as { error: { details: string[] } }).error.details[0]).toContain('"version" must be a name like "2.0"');
  });
});
