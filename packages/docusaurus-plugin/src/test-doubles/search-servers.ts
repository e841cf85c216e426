/**
 * A docs site and a docs-chat server for search tests: real HTTP on 127.0.0.1,
 * so the search client's real fetch, timeout and fallback code runs. The site
 * serves the static index (or a damaged or missing one); the server answers
 * `GET /search` as each test scripts it (results, an error status, slowness,
 * or nothing at all once stopped).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

export interface ScriptedSearchAnswer {
  status?: number;
  /** A JSON body; defaults to the fixture server-search-response.json. */
  json?: unknown;
  delayMs?: number;
}

/** What the site serves as its static index: the lighthouse fixture, a raw fixture file in its place, or nothing. */
export type StaticIndexFixture = { kind: 'lighthouse' } | { kind: 'file'; name: string } | { kind: 'missing' };

export interface SearchTestServers {
  siteUrl: string;
  /** The manifest URL as the page computes it (a path on the site). */
  manifestPath: string;
  serverUrl: string;
  /** Paths the site and the server were asked for, in order. */
  siteRequests: string[];
  serverRequests: string[];
  answerSearchWith(...answers: ScriptedSearchAnswer[]): void;
  /** Stops the chat server (the site keeps serving): searches then meet a refused connection. */
  stopServer(): Promise<void>;
  /** A fetch that resolves site paths against the site, as the browser does. */
  fetch: typeof fetch;
  close(): Promise<void>;
}

const staticSearchFixtures = new URL('../static-search/__fixtures__/', import.meta.url);
const searchClientFixtures = new URL('../search-client/__fixtures__/', import.meta.url);
export const INDEX_FILE_NAME = 'search-index.0123456789ab.json';

export function readSearchFixture(name: string): string {
  return readFileSync(new URL(name, searchClientFixtures), 'utf8');
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export async function startSearchTestServers(
  index: StaticIndexFixture = { kind: 'lighthouse' },
  baseUrl = '/',
): Promise<SearchTestServers> {
  const siteRequests: string[] = [];
  const serverRequests: string[] = [];
  let answers: ScriptedSearchAnswer[] = [{}];
  const manifestPath = `${baseUrl}docs-chat/search-manifest.json`;
  const indexBody =
    index.kind === 'lighthouse'
      ? readFileSync(new URL('lighthouse-index.json', staticSearchFixtures), 'utf8')
      : index.kind === 'file'
        ? readSearchFixture(index.name)
        : null;

  const site = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    siteRequests.push(path);
    if (indexBody !== null && path === manifestPath) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ format: 'docs-chat-search-manifest', version: 1, index: INDEX_FILE_NAME, pages: 5, sections: 15 }));
    } else if (indexBody !== null && path === `${baseUrl}docs-chat/${INDEX_FILE_NAME}`) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(indexBody);
    } else {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<h1>Page not found</h1>');
    }
  });

  const api = createServer((request, response) => {
    serverRequests.push(request.url ?? '');
    const answer = (answers.length > 1 ? answers.shift() : answers[0]) ?? {};
    const send = (): void => {
      if (response.destroyed) return;
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      response.end(JSON.stringify(answer.json ?? JSON.parse(readSearchFixture('server-search-response.json'))));
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });

  const siteUrl = await listen(site);
  const serverUrl = await listen(api);
  let serverRunning = true;

  return {
    siteUrl,
    manifestPath,
    serverUrl,
    siteRequests,
    serverRequests,
    answerSearchWith: (...next) => {
      answers = next;
    },
    stopServer: async () => {
      if (!serverRunning) return;
      serverRunning = false;
      await closeServer(api);
    },
    fetch: (input, init) => fetch(new URL(input instanceof Request ? input.url : String(input), siteUrl), init),
    close: async () => {
      if (serverRunning) await closeServer(api);
      await closeServer(site);
    },
  };
}
