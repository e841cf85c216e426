import fs from 'node:fs';
import { createVectorStoreFromConfig, loadCoreConfig } from '@docs-chat/core';
import type { ChunkPayload } from '@docs-chat/core';
import { collectPageIds, type PageIds } from './support/html-ids.js';
import { readSharedBuild, type SharedSiteBuild } from './support/shared-build.js';
import { resolveBuildFile } from './support/static-server.js';

// Issue 4: every URL a citation can link to must exist in the site the reader sees.
// The global setup built docs-site with the plugin (which writes the build's exact
// permalinks) and ran `docs-chat ingest` on the built copy's docs.

interface ChunkUrl {
  file: string;
  url: string;
  path: string;
  anchor: string | null;
}

let build: SharedSiteBuild;
let chunks: ChunkUrl[];
const pageIds = new Map<string, PageIds | null>();

function splitUrl(url: string): { path: string; anchor: string | null } {
  const hash = url.indexOf('#');
  if (hash === -1) return { path: url, anchor: null };
  return { path: url.slice(0, hash), anchor: decodeURIComponent(url.slice(hash + 1)) };
}

function idsOf(path: string): PageIds | null {
  if (!pageIds.has(path)) {
    const file = resolveBuildFile(build.buildDir, path);
    pageIds.set(path, file && file.endsWith('.html') ? collectPageIds(fs.readFileSync(file, 'utf8')) : null);
  }
  return pageIds.get(path) ?? null;
}

beforeAll(async () => {
  build = readSharedBuild();
  const store = createVectorStoreFromConfig(loadCoreConfig({ DATA_DIR: build.dataDir }, build.workDir));
  try {
    const payloads: ChunkPayload[] = [];
    for (const file of await store.listFiles()) payloads.push(...(await store.getByFile(file.file)));
    chunks = payloads.map((chunk) => ({ file: chunk.file, url: chunk.url, ...splitUrl(chunk.url) }));
  } finally {
    await store.close();
  }
});

test('the ingest of docs-site produced chunks for every page the build lists in its permalinks file', () => {
  expect(build.permalinksFile).not.toBeNull();
  const permalinks = JSON.parse(fs.readFileSync(build.permalinksFile as string, 'utf8')) as {
    docs: { source: string; permalink: string }[];
  };
  const filesWithChunks = new Set(chunks.map((chunk) => chunk.file));
  const pagesWithoutChunks = permalinks.docs.filter((doc) => !filesWithChunks.has(doc.source)).map((doc) => doc.source);
  expect(permalinks.docs.length).toBeGreaterThan(5);
  expect(pagesWithoutChunks).toEqual([]);
});

test('every chunk URL is a site path whose page exists in the build output', () => {
  const missing = chunks
    .filter((chunk) => !chunk.path.startsWith('/') || idsOf(chunk.path) === null)
    .map((chunk) => `${chunk.url} (from ${chunk.file})`);
  expect(chunks.length).toBeGreaterThan(50);
  expect([...new Set(missing)]).toEqual([]);
});

test('every chunk URL is the exact permalink the plugin wrote for its source file', () => {
  const permalinks = JSON.parse(fs.readFileSync(build.permalinksFile as string, 'utf8')) as {
    docs: { source: string; permalink: string }[];
  };
  const bySource = new Map(permalinks.docs.map((doc) => [doc.source, doc.permalink]));
  const mismatched = chunks
    .filter((chunk) => bySource.get(chunk.file) !== chunk.path)
    .map((chunk) => `${chunk.file}: ${chunk.path} (build: ${bySource.get(chunk.file) ?? 'none'})`);
  expect([...new Set(mismatched)]).toEqual([]);
});

test("every chunk URL's anchor is the id of a heading in that page's HTML", () => {
  const anchored = chunks.filter((chunk) => chunk.anchor !== null);
  const notAnElement: string[] = [];
  const notAHeading: string[] = [];
  for (const chunk of anchored) {
    const ids = idsOf(chunk.path);
    if (!ids) continue; // reported by the path test
    if (!ids.all.has(chunk.anchor as string)) notAnElement.push(chunk.url);
    else if (!ids.headings.has(chunk.anchor as string)) notAHeading.push(chunk.url);
  }
  // Most chunks sit under a heading; a suite where none did would check nothing.
  expect(anchored.length).toBeGreaterThan(chunks.length / 2);
  expect({ notAnElement: [...new Set(notAnElement)], notAHeading: [...new Set(notAHeading)] }).toEqual({
    notAnElement: [],
    notAHeading: [],
  });
});
