import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { AllContent, DocusaurusConfig, LoadContext, PluginContentLoadedActions } from '@docusaurus/types';
import docsChatPlugin, { validateOptions, type Options, type PluginOptions } from '../index.js';
import { toCleanMarkdown } from './clean-markdown.js';
import { markdownTwinPath } from './write-llms-txt.js';

const { normalizePluginOptions } = createRequire(import.meta.url)(
  '@docusaurus/utils-validation',
) as typeof import('@docusaurus/utils-validation');
const siteDir = fileURLToPath(new URL('./__fixtures__/site/', import.meta.url));

function validate(options: Options | undefined): PluginOptions {
  return validateOptions({ validate: (schema, value) => normalizePluginOptions(schema, value as Partial<PluginOptions>), options });
}

const siteConfig = {
  title: 'Lanterns',
  tagline: 'Light for static sites.',
  url: 'https://acme.example',
  baseUrl: '/lanterns/',
} as DocusaurusConfig;

describe('llms.txt at build', () => {
  let outDir: string;
  beforeEach(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'docs-chat-llms-'));
  });
  afterEach(async () => {
    await rm(outDir, { recursive: true, force: true });
  });

  async function build(options: Options = {}): Promise<void> {
    const plugin = docsChatPlugin(
      { siteDir, generatedFilesDir: join(outDir, '.docusaurus'), siteConfig } as LoadContext,
      validate({ writePermalinks: false, search: { staticIndex: false }, ...options }),
    );
    const allContent = JSON.parse(readFileSync(join(siteDir, 'all-content.json'), 'utf8').replaceAll('<siteDir>', siteDir)) as AllContent;
    await plugin.allContentLoaded?.({ allContent, actions: {} as PluginContentLoadedActions });
    await plugin.postBuild?.({ outDir, baseUrl: '/lanterns/', siteConfig } as Parameters<NonNullable<typeof plugin.postBuild>>[0]);
  }

  it('writes llms.txt: the title, the tagline as summary, and one link per page to its .md twin with its description, grouped by sidebar category', async () => {
    await build();
    expect(await readFile(join(outDir, 'llms.txt'), 'utf8')).toBe(
      [
        '# Lanterns',
        '',
        '> Light for static sites.',
        '',
        'Each link is the markdown version of a page of https://acme.example/lanterns/; llms-full.txt holds all of them in one file.',
        '',
        '## Docs',
        '',
        '- [Welcome to Lanterns](https://acme.example/lanterns/docs/intro.md): What Lanterns is and who it is for.',
        '',
        '## Guides',
        '',
        '- [Setting up a lantern](https://acme.example/lanterns/docs/guides/setup.md): Fill the lantern with oil before lighting it.',
        '- [Cleaning](https://acme.example/lanterns/docs/guides/cleaning/index.html.md): Wipe the glass with a dry cloth.',
        '',
        '## Other pages',
        '',
        '- [Changelog](https://acme.example/lanterns/docs/changelog.md): Every release.',
        '',
      ].join('\n'),
    );
  });

  it('writes a .md twin of every listed page as clean markdown (no front matter, imports, JSX or comments), and none of unlisted pages', async () => {
    await build();
    const setup = await readFile(join(outDir, 'docs', 'guides', 'setup.md'), 'utf8');
    expect(setup.startsWith('# Setting up a lantern\n\nFill the lantern with oil before lighting it.\n')).toBe(true);
    expect(setup).not.toMatch(/import |export const|<Tabs|<TabItem|Editors: keep|sidebar_label|:::/);
    expect(setup).toContain('**Tip: Safety first**\n\nKeep a bucket of sand nearby.');
    expect(setup).toContain('**Oil lantern**\n\nPour **paraffin** up to the line.');
    expect(setup).toContain('**LED lantern**\n\nCharge it for two hours.');
    expect(setup).toContain('## Lighting it\n');
    expect(setup).toContain('```js title="light.js"\nlantern.light({ wick: 3 }); // {#not-a-heading-id}\n```');
    expect(setup).toMatch(/\| Part +\| Material +\|/);
    const intro = await readFile(join(outDir, 'docs', 'intro.md'), 'utf8');
    expect(intro).toBe(
      '# Welcome to Lanterns\n\nLanterns lights up **static** sites with [search](./guides/setup.mdx).\n\n## Why lanterns\n\nThey are cheap and bright.\n',
    );
    await expect(readFile(join(outDir, 'docs', 'guides', 'cleaning', 'index.html.md'), 'utf8')).resolves.toBe(
      '# Cleaning\n\nWipe the glass with a dry cloth.\n',
    );
    await expect(readFile(join(outDir, 'docs', 'hidden.md'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('writes llms-full.txt with every listed page in llms.txt order, each followed by its URL', async () => {
    await build();
    const full = await readFile(join(outDir, 'llms-full.txt'), 'utf8');
    expect(full.startsWith('# Lanterns\n\n> Light for static sites.\n\n# Welcome to Lanterns\n')).toBe(true);
    const order = ['# Welcome to Lanterns', '# Setting up a lantern', '# Cleaning', '# Changelog'].map((heading) =>
      full.indexOf(`\n${heading}\n`),
    );
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(full).toContain('Source: https://acme.example/lanterns/docs/guides/setup\n');
    expect(full).not.toContain('Secret draft');
    expect(full.endsWith('Source: https://acme.example/lanterns/docs/changelog\n')).toBe(true);
  });

  it('uses the summary option instead of the tagline', async () => {
    await build({ llmsTxt: { summary: 'Lantern docs for agents.' } });
    expect(await readFile(join(outDir, 'llms.txt'), 'utf8')).toMatch(/^# Lanterns\n\n> Lantern docs for agents\.\n/);
  });

  it('writes nothing when the site turns it off with llmsTxt: false', async () => {
    await build({ llmsTxt: false });
    await expect(readFile(join(outDir, 'llms.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(outDir, 'llms-full.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(outDir, 'docs', 'intro.md'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('refuses an llmsTxt option that is not a boolean or {enabled, summary}, saying what to write', () => {
    expect(() => validate({ llmsTxt: 'yes' as unknown as boolean })).toThrow(/"llmsTxt" must be false/);
    expect(() => validate({ llmsTxt: { full: true } as unknown as boolean })).toThrow(/llmsTxt/);
  });
});

describe('toCleanMarkdown', () => {
  it('still gives the words of a page that is not valid MDX', () => {
    const clean = toCleanMarkdown('# Broken\n\nA value {like this and <unclosed tag.\n');
    expect(clean.markdown).toContain('A value');
    expect(clean.startsWithTitle).toBe(true);
  });

  it('places twins as llmstxt.org proposes', () => {
    expect(markdownTwinPath('/docs/intro', '/')).toEqual({ file: 'docs/intro.md', urlPath: '/docs/intro.md' });
    expect(markdownTwinPath('/base/docs/', '/base/')).toEqual({ file: 'docs/index.html.md', urlPath: '/base/docs/index.html.md' });
  });
});
