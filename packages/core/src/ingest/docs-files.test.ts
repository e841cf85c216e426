import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { listDocsFiles, loadPermalinks } from './docs-files.js';

describe('docs files', () => {
  let siteDir: string;
  let docsDir: string;
  beforeEach(async () => {
    siteDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-chat-site-'));
    docsDir = path.join(siteDir, 'docs');
    await fs.mkdir(path.join(docsDir, 'guides', '_partials'), { recursive: true });
    await fs.writeFile(path.join(docsDir, 'intro.md'), '# Intro');
    await fs.writeFile(path.join(docsDir, 'guides', 'setup.mdx'), '# Setup');
    await fs.writeFile(path.join(docsDir, 'guides', '_snippet.mdx'), 'partial');
    await fs.writeFile(path.join(docsDir, 'guides', '_partials', 'x.md'), 'partial');
    await fs.writeFile(path.join(docsDir, 'guides', 'diagram.png'), 'png');
  });
  afterEach(async () => {
    await fs.rm(siteDir, { recursive: true, force: true });
  });

  it('lists markdown and MDX pages and leaves out partials as Docusaurus does', async () => {
    const listing = await listDocsFiles(docsDir);
    expect(listing.pages).toEqual(['guides/setup.mdx', 'intro.md']);
    expect(listing.ignored.map((entry) => entry.file)).toEqual(expect.arrayContaining(['guides/_snippet.mdx', 'guides/_partials/']));
  });

  it('says which flag to use when the docs folder is missing', async () => {
    await expect(listDocsFiles(path.join(siteDir, 'nope'))).rejects.toMatchObject({
      code: 'docs_dir_missing',
      hint: expect.stringContaining('--docs'),
    });
  });

  it('reads the exact permalinks the plugin wrote into the site build', async () => {
    await fs.mkdir(path.join(siteDir, 'build'), { recursive: true });
    await fs.writeFile(
      path.join(siteDir, 'build', 'docs-chat-permalinks.json'),
      JSON.stringify({ version: 1, docs: [{ source: 'guides/setup.mdx', permalink: '/docs/guides/install' }] }),
    );
    const permalinks = await loadPermalinks(docsDir);
    expect(permalinks.get('guides/setup.mdx')).toBe('/docs/guides/install');
  });

  it('computes URLs itself when there is no site build', async () => {
    expect((await loadPermalinks(docsDir)).size).toBe(0);
  });

  it('refuses a permalinks file in an unknown format with a fix', async () => {
    const file = path.join(siteDir, 'permalinks.json');
    await fs.writeFile(file, '{"docs": 3}');
    await expect(loadPermalinks(docsDir, file)).rejects.toMatchObject({ code: 'config_invalid', hint: expect.stringContaining('Rebuild') });
  });
});
