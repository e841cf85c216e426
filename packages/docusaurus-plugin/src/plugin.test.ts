import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { AllContent, LoadContext, PluginContentLoadedActions } from '@docusaurus/types';
import docsChatPlugin, { DEFAULT_OPTIONS, getSwizzleConfig, validateOptions, type Options, type PluginOptions } from './index.js';
import { collectPermalinks } from './permalinks.js';

const { normalizePluginOptions } = createRequire(import.meta.url)(
  '@docusaurus/utils-validation',
) as typeof import('@docusaurus/utils-validation');

// Docusaurus hands validateOptions its own normalizePluginOptions as `validate`.
function validate(options: Options | undefined): PluginOptions {
  return validateOptions({ validate: (schema, value) => normalizePluginOptions(schema, value as Partial<PluginOptions>), options });
}

function allContentFixture(name: string, siteDir: string): AllContent {
  const text = readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
  return JSON.parse(text.replaceAll('<siteDir>', siteDir.replaceAll('\\', '/'))) as AllContent;
}

describe('plugin options', () => {
  it('fills in every default when no options are given', () => {
    expect(validate(undefined)).toEqual({ ...DEFAULT_OPTIONS, id: 'default' });
  });

  it('accepts a full set of options', () => {
    const options = validate({
      serverUrl: 'https://chat.example.com/',
      title: 'Ask Redux',
      placeholder: 'Ask about Redux…',
      welcomeMessage: 'Hello!',
      suggestedQuestions: ['What is a reducer?', 'How do I use RTK Query?', 'What is a thunk?'],
      selectionMode: false,
      contentSelector: 'article',
      shortcut: 'ctrl+shift+k',
      panel: { side: 'left', width: 520 },
    });
    expect(options).toMatchObject({ serverUrl: 'https://chat.example.com/', panel: { side: 'left', width: 520 }, selectionMode: false });
  });

  it('lets a site without the navbar search use Ctrl+K for the chat', () => {
    expect(validate({ shortcut: 'mod+k', search: { navbar: false } })).toMatchObject({
      shortcut: 'mod+k',
      search: { navbar: false, staticIndex: true },
    });
  });

  it('fills in a missing panel width when only the side is given', () => {
    expect(validate({ panel: { side: 'left' } }).panel).toEqual({ side: 'left', width: 420 });
  });

  it.each<[string, Options, RegExp]>([
    ['four suggested questions', { suggestedQuestions: ['a', 'b', 'c', 'd'] }, /holds at most 3 questions/],
    ['a server URL without a scheme', { serverUrl: 'localhost:8000' }, /"serverUrl" must start with http:\/\/ or https:\/\//],
    ['a server URL that is not a URL', { serverUrl: 'not a url' }, /"serverUrl" must start with http:\/\/ or https:\/\//],
    [
      'an empty server URL (an empty environment variable)',
      { serverUrl: '' },
      /"serverUrl" is empty: set it .* e\.g\. "https:\/\/chat\.example\.com"/,
    ],
    [
      'a server URL that is not a string',
      { serverUrl: 8000 as unknown as string },
      /"serverUrl" must be a string such as "http:\/\/localhost:8000"/,
    ],
    ['a shortcut without a modifier', { shortcut: 'i' }, /"shortcut" must be modifiers and one key joined by "\+", e.g. "mod\+i"/],
    ['a panel narrower than a phone', { panel: { width: 100 } }, /"panel.width" is in CSS pixels and must be at least 280/],
    ['a panel on the top', { panel: { side: 'top' as 'left' } }, /"panel.side" must be "left" or "right"/],
    ['an empty title', { title: '' }, /"title" must not be empty: remove the option to use the translated default/],
    ['a misspelt option', { serverURL: 'x' } as Options, /Unknown docs-chat option "serverURL": the options are serverUrl/],
    [
      'a search option that is not a boolean',
      { search: { navbar: 'no' as unknown as boolean } },
      /"search.navbar" must be true .* or false \(keep the site's own search, e.g. Algolia DocSearch\)/,
    ],
    [
      'a misspelt search option',
      { search: { navBar: false } as Options['search'] },
      /Unknown option "search.navBar": "search" takes navbar and staticIndex/,
    ],
    [
      "a chat shortcut that is the search box's",
      { shortcut: 'mod+k' },
      /"shortcut" "mod\+k" is the search box's shortcut \(Ctrl\+K, ⌘K on macOS\): choose another, e.g. "mod\+i", or set search.navbar to false/,
    ],
    ["a chat shortcut that is the search box's on Windows and Linux", { shortcut: 'ctrl+k' }, /is the search box's shortcut/],
    [
      'a hidden page written without its leading slash',
      { hideLauncherOn: ['blog/**'] },
      /Each entry of "hideLauncherOn" must be a page path starting with "\/", under the site's base URL, .* e\.g\. "\/" \(the home page\) or "\/blog\/\*\*"/,
    ],
    ['a hidden page given as a full URL', { hideLauncherOn: ['https://example.com/blog'] }, /must be a page path starting with "\/"/],
    ['a hidden page with a query', { hideLauncherOn: ['/search?q=x'] }, /without "\?", "#" or spaces/],
    [
      'hidden pages given as one string',
      { hideLauncherOn: '/blog/**' as unknown as string[] },
      /"hideLauncherOn" must be an array of page paths, e\.g\. \["\/", "\/blog\/\*\*"\]/,
    ],
    [
      'more hidden-page patterns than a site needs',
      { hideLauncherOn: Array.from({ length: 101 }, (_, index) => `/page-${index}`) },
      /"hideLauncherOn" holds at most 100 patterns: use "\*" \(one path segment\) and "\*\*" \(any depth\)/,
    ],
  ])('rejects %s with a message that says what to fix', (_case, options, message) => {
    expect(() => validate(options)).toThrow(message);
  });

  it('hands the browser only the settings it needs, with the URL normalised', async () => {
    const plugin = docsChatPlugin(
      { siteDir: '/site', generatedFilesDir: '/site/.docusaurus' } as LoadContext,
      validate({ serverUrl: 'https://chat.example.com/', shortcut: 'Mod+I' }),
    );
    let globalData: unknown;
    const actions = { setGlobalData: (data: unknown) => (globalData = data) } as PluginContentLoadedActions;
    await plugin.contentLoaded?.({ content: undefined, actions });
    expect(globalData).toEqual({
      serverUrl: 'https://chat.example.com',
      title: null,
      placeholder: null,
      welcomeMessage: null,
      suggestedQuestions: [],
      selectionMode: true,
      contentSelector: 'main',
      shortcut: 'mod+i',
      panel: { side: 'right', width: 420 },
      hideLauncherOn: [],
      search: { staticIndex: true },
    });
    expect(JSON.stringify(globalData).length).toBeLessThan(400);
  });

  it('hands the browser the hidden pages as compiled patterns, not the glob library', async () => {
    const options = validate({ hideLauncherOn: ['/blog/**', '/'] });
    expect(options.hideLauncherOn).toEqual(['/blog/**', '/']);
    const plugin = docsChatPlugin({ siteDir: '/site', generatedFilesDir: '/site/.docusaurus' } as LoadContext, options);
    let globalData: unknown;
    const actions = { setGlobalData: (data: unknown) => (globalData = data) } as PluginContentLoadedActions;
    await plugin.contentLoaded?.({ content: undefined, actions });
    const [blog, home] = (globalData as { hideLauncherOn: string[] }).hideLauncherOn.map((source) => new RegExp(source));
    expect(blog?.test('/blog/2026/welcome')).toBe(true);
    expect(blog?.test('/docs/intro')).toBe(false);
    expect(home?.test('/')).toBe(true);
    expect(home?.test('/blog')).toBe(false);
  });

  it('adds no insights page unless the site enables it, and adds it under the base URL when enabled', async () => {
    const routes: { path: string; component: string }[] = [];
    const actions = {
      setGlobalData: () => undefined,
      addRoute: (route: { path: string; component: string }) => routes.push(route),
    } as unknown as PluginContentLoadedActions;
    const context = { siteDir: '/site', generatedFilesDir: '/g', baseUrl: '/handbook/' } as LoadContext;
    await docsChatPlugin(context, validate({})).contentLoaded?.({ content: undefined, actions });
    expect(routes).toEqual([]);
    await docsChatPlugin(context, validate({ insights: { enabled: true } })).contentLoaded?.({ content: undefined, actions });
    expect(routes).toHaveLength(1);
    expect(routes[0]?.path).toBe('/handbook/docs-chat/insights');
    expect(routes[0]?.component).toMatch(/lib[\\/]insights[\\/]insights-route\.js$/);
    expect(() => validate({ insights: { enabled: true, path: 'insights' } })).toThrow(/"insights.path" must be a route starting with "\/"/);
  });

  it('points Docusaurus at compiled components and swizzle --typescript at the sources', () => {
    const plugin = docsChatPlugin({ siteDir: '/site', generatedFilesDir: '/g' } as LoadContext, validate({}));
    expect(plugin.getThemePath?.()).toMatch(/docusaurus-plugin[/\\]lib[/\\]theme$/);
    expect(plugin.getTypeScriptThemePath?.()).toMatch(/docusaurus-plugin[/\\]src[/\\]theme$/);
  });

  it("leaves the site's own SearchBar (Algolia DocSearch, say) in place when the navbar search is turned off", () => {
    const plugin = docsChatPlugin({ siteDir: '/site', generatedFilesDir: '/g' } as LoadContext, validate({ search: { navbar: false } }));
    expect(plugin.getThemePath?.()).toMatch(/docusaurus-plugin[/\\]lib[/\\]theme-without-search-bar$/);
  });

  it('declares every theme component safe to wrap, and only the leaf components safe to eject', () => {
    const { components } = getSwizzleConfig();
    expect(Object.keys(components).sort()).toEqual([
      'ChatPanel',
      'ChatWidget',
      'InputBox',
      'MessageList',
      'OfflineAnswer',
      'PanelSearch',
      'Root',
      'SearchBar',
      'SearchModal',
      'SearchResults',
      'SelectionMode',
      'SourceList',
    ]);
    for (const config of Object.values(components)) {
      expect(config.actions.wrap).toBe('safe');
      expect(config.description?.length).toBeGreaterThan(20);
    }
    expect(
      Object.entries(components)
        .filter(([, config]) => config.actions.eject === 'safe')
        .map(([name]) => name)
        .sort(),
    ).toEqual(['InputBox', 'OfflineAnswer', 'SearchBar', 'SearchResults', 'SelectionMode', 'SourceList']);
  });
});

describe('permalinks hand-off', () => {
  let siteDir: string;
  beforeEach(async () => {
    siteDir = await mkdtemp(join(tmpdir(), 'docs-chat-site-'));
  });
  afterEach(async () => {
    await rm(siteDir, { recursive: true, force: true });
  });

  it('lists each doc source relative to the docs folder with its exact permalink', () => {
    const file = collectPermalinks(allContentFixture('docs-content-with-slugs-and-prefixes.json', siteDir), siteDir);
    expect(file).toEqual({
      version: 1,
      docs: [
        { source: '02-guides/ingest.md', permalink: '/docs/guides/ingest', id: 'guides/ingest', title: 'Ingest your docs' },
        { source: 'guides/translated.md', permalink: '/docs/guides/translated', id: 'guides/translated', title: 'Translated' },
        { source: 'intro.md', permalink: '/docs/intro', id: 'intro', title: 'Introduction' },
        { source: 'reference/http-api.mdx', permalink: '/docs/api', id: 'reference/http-api', title: 'HTTP API' },
      ],
    });
  });

  it('uses the current version of the default docs instance: the files the ingest reads', () => {
    const file = collectPermalinks(allContentFixture('docs-content-versioned.json', siteDir), siteDir);
    expect(file.docs).toEqual([{ source: 'intro.md', permalink: '/docs/next/intro', id: 'intro', title: 'Introduction' }]);
  });

  it('marks an unlisted doc, so the static search index can leave it out', () => {
    const doc = (id: string, unlisted: boolean) => ({ id, title: id, source: `@site/docs/${id}.md`, permalink: `/docs/${id}`, unlisted });
    const allContent = {
      'docusaurus-plugin-content-docs': {
        default: {
          loadedVersions: [{ versionName: 'current', contentPath: join(siteDir, 'docs'), docs: [doc('intro', false), doc('notes', true)] }],
        },
      },
    } as unknown as AllContent;
    expect(collectPermalinks(allContent, siteDir).docs).toEqual([
      { source: 'intro.md', permalink: '/docs/intro', id: 'intro', title: 'intro' },
      { source: 'notes.md', permalink: '/docs/notes', id: 'notes', title: 'notes', unlisted: true },
    ]);
  });

  it('writes an empty list when the site has no docs plugin', () => {
    expect(collectPermalinks({}, siteDir)).toEqual({ version: 1, docs: [] });
  });

  it('writes the file to the generated files during loading and into the build output after the build', async () => {
    const generatedFilesDir = join(siteDir, '.docusaurus');
    const outDir = join(siteDir, 'build');
    const plugin = docsChatPlugin({ siteDir, generatedFilesDir } as LoadContext, validate({ search: { staticIndex: false } }));
    await plugin.allContentLoaded?.({
      allContent: allContentFixture('docs-content-with-slugs-and-prefixes.json', siteDir),
      actions: {} as PluginContentLoadedActions,
    });
    const generated = JSON.parse(await readFile(join(generatedFilesDir, 'docs-chat', 'permalinks.json'), 'utf8')) as { docs: unknown[] };
    expect(generated.docs).toHaveLength(4);
    await plugin.postBuild?.({ outDir } as Parameters<NonNullable<typeof plugin.postBuild>>[0]);
    expect(await readFile(join(outDir, 'docs-chat-permalinks.json'), 'utf8')).toBe(
      await readFile(join(generatedFilesDir, 'docs-chat', 'permalinks.json'), 'utf8'),
    );
  });

  it('writes nothing when the site turns the hand-off off', async () => {
    const generatedFilesDir = join(siteDir, '.docusaurus');
    const plugin = docsChatPlugin({ siteDir, generatedFilesDir } as LoadContext, validate({ writePermalinks: false }));
    await plugin.allContentLoaded?.({
      allContent: allContentFixture('docs-content-versioned.json', siteDir),
      actions: {} as PluginContentLoadedActions,
    });
    await expect(readFile(join(generatedFilesDir, 'docs-chat', 'permalinks.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

describe('static search index at build', () => {
  let siteDir: string;
  beforeEach(async () => {
    siteDir = await mkdtemp(join(tmpdir(), 'docs-chat-site-'));
  });
  afterEach(async () => {
    await rm(siteDir, { recursive: true, force: true });
  });

  async function buildWithOnePage(options: Options): Promise<string> {
    const outDir = join(siteDir, 'build');
    const plugin = docsChatPlugin({ siteDir, generatedFilesDir: join(siteDir, '.docusaurus') } as LoadContext, validate(options));
    await plugin.allContentLoaded?.({
      allContent: allContentFixture('docs-content-versioned.json', siteDir),
      actions: {} as PluginContentLoadedActions,
    });
    await mkdir(join(outDir, 'docs', 'next', 'intro'), { recursive: true });
    await writeFile(
      join(outDir, 'docs', 'next', 'intro', 'index.html'),
      '<html><body><article><div class="theme-doc-markdown markdown"><h1>Introduction</h1><p>Welcome to the docs.</p></div></article></body></html>',
    );
    await plugin.postBuild?.({ outDir, baseUrl: '/' } as Parameters<NonNullable<typeof plugin.postBuild>>[0]);
    return outDir;
  }

  it('writes the index of the docs under docs-chat/ in the build output', async () => {
    const outDir = await buildWithOnePage({});
    const manifest = JSON.parse(await readFile(join(outDir, 'docs-chat', 'search-manifest.json'), 'utf8')) as {
      index: string;
      pages: number;
    };
    expect(manifest.pages).toBe(1);
    expect(await readFile(join(outDir, 'docs-chat', manifest.index), 'utf8')).toContain('Welcome to the docs.');
  });

  it('writes no index when the site turns it off', async () => {
    const outDir = await buildWithOnePage({ search: { staticIndex: false } });
    await expect(readFile(join(outDir, 'docs-chat', 'search-manifest.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
