/** @jest-environment node */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseSearchIndex, parseSearchManifest } from '../static-search/index-format.js';
import { builtPageFiles, writeSearchIndex } from './write-search-index.js';

function page(title: string, heading: string, anchor: string): string {
  return `<!doctype html><html><body><main><article><div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header><p>About ${title.toLowerCase()}.</p><h2 class="anchor" id=${anchor}>${heading}<a href=#${anchor} class=hash-link>\u200b</a></h2><p>How to ${heading.toLowerCase()}.</p></div></article></main></body></html>`;
}

describe('the static search index written after the build', () => {
  let outDir: string;
  beforeEach(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'docs-chat-build-'));
  });
  afterEach(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  async function writePage(relativePath: string, html: string): Promise<void> {
    await mkdir(dirname(join(outDir, relativePath)), { recursive: true });
    await writeFile(join(outDir, relativePath), html);
  }

  it('finds a page built with trailingSlash true, false or unset, under a base URL', () => {
    expect(builtPageFiles('/out', '/handbook/', '/handbook/docs/lamp/')).toEqual([
      join('/out', 'docs/lamp', 'index.html'),
      join('/out', 'docs/lamp.html'),
    ]);
    expect(builtPageFiles('/out', '/handbook/', '/handbook/docs/lamp')).toEqual([
      join('/out', 'docs/lamp', 'index.html'),
      join('/out', 'docs/lamp.html'),
    ]);
    expect(builtPageFiles('/out', '/', '/')).toEqual([join('/out', 'index.html')]);
  });

  it('writes the sections of every listed doc with its URL as built, base URL and trailing slash included, under a content-hashed name', async () => {
    await writePage('docs/lamp.html', page('The lamp', 'Trim the wick', 'trim-the-wick'));
    await writePage('docs/fog-signal/index.html', page('The fog signal', 'Start the compressor', 'start-the-compressor'));
    await writePage('docs/keeper-notes.html', page('Keeper notes', 'Hide the spare key', 'hide-the-spare-key'));
    const { written, skipped } = await writeSearchIndex(outDir, '/handbook/', [
      { permalink: '/handbook/docs/lamp', title: 'Lamp', source: 'lamp.md' },
      { permalink: '/handbook/docs/fog-signal/', title: 'Fog signal', source: 'fog-signal.md' },
      { permalink: '/handbook/docs/missing', title: 'Missing', source: 'missing.md' },
      // Built and reachable by its URL, but unlisted: kept out of search like Docusaurus' own search plugins do.
      { permalink: '/handbook/docs/keeper-notes', title: 'Keeper notes', source: 'keeper-notes.md', unlisted: true },
    ]);
    expect(skipped).toEqual([{ source: 'missing.md', reason: 'no built page for /handbook/docs/missing' }]);
    expect(written?.manifest.index).toMatch(/^search-index\.[0-9a-f]{12}\.json$/);
    expect((await readdir(join(outDir, 'docs-chat'))).sort()).toEqual([written?.manifest.index, 'search-manifest.json']);
    const manifest = parseSearchManifest(JSON.parse(await readFile(join(outDir, 'docs-chat', 'search-manifest.json'), 'utf8')));
    expect(manifest).toMatchObject({ pages: 2, sections: 4 });
    const index = parseSearchIndex(JSON.parse(await readFile(join(outDir, 'docs-chat', manifest.index), 'utf8')));
    expect(index.pages).toEqual([
      ['/handbook/docs/lamp', 'The lamp'],
      ['/handbook/docs/fog-signal/', 'The fog signal'],
    ]);
    expect(index.sections).toEqual([
      [0, '', [], 1, 'About the lamp.'],
      [0, 'trim-the-wick', ['Trim the wick'], 2, 'How to trim the wick.'],
      [1, '', [], 1, 'About the fog signal.'],
      [1, 'start-the-compressor', ['Start the compressor'], 2, 'How to start the compressor.'],
    ]);
  });

  it('names the index after its content, so a changed page gets a new name and an unchanged build the same one', async () => {
    const docs = [{ permalink: '/docs/lamp', title: 'Lamp', source: 'lamp.md' }];
    await writePage('docs/lamp/index.html', page('The lamp', 'Trim the wick', 'trim-the-wick'));
    const first = (await writeSearchIndex(outDir, '/', docs)).written?.manifest.index;
    expect((await writeSearchIndex(outDir, '/', docs)).written?.manifest.index).toBe(first);
    await writePage('docs/lamp/index.html', page('The lamp', 'Light the lamp', 'light-the-lamp'));
    expect((await writeSearchIndex(outDir, '/', docs)).written?.manifest.index).not.toBe(first);
  });

  it('writes nothing when no doc has a built page', async () => {
    const { written, skipped } = await writeSearchIndex(outDir, '/', [{ permalink: '/docs/lamp', title: 'Lamp', source: 'lamp.md' }]);
    expect(written).toBeNull();
    expect(skipped).toHaveLength(1);
    await expect(readdir(join(outDir, 'docs-chat'))).rejects.toThrow(/ENOENT/);
  });
});
