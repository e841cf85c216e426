import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { LoadContext, Plugin } from '@docusaurus/types';
import { DOCS_CHAT_PLUGIN_NAME } from './client-settings/docs-chat-settings.js';
import { toClientSettings, type PluginOptions } from './options.js';
import {
  collectPermalinks,
  PERMALINKS_BUILD_FILE,
  PERMALINKS_GENERATED_PATH,
  writePermalinksFile,
  type PermalinksFile,
} from './permalinks.js';
import { writeSearchIndex } from './search-index/write-search-index.js';
import { collectLlmsPages, writeLlmsTxt, type LlmsTxtPage } from './llms-txt/write-llms-txt.js';

const packageDir = join(fileURLToPath(new URL('.', import.meta.url)), '..');

/**
 * The compiled theme without the SearchBar component (scripts/build.mjs writes
 * it): a site that keeps Algolia DocSearch or another search box sets
 * `search.navbar: false`, and then no component of ours shadows its SearchBar.
 */
export const THEME_WITHOUT_SEARCH_BAR = 'theme-without-search-bar';

/**
 * The Docusaurus plugin: a chat widget on every page, a search box in the navbar, the static
 * search index written at build, and the permalinks hand-off for the ingest.
 */
export default function docsChatPlugin(context: LoadContext, options: PluginOptions): Plugin<void> {
  let permalinks: PermalinksFile | null = null;
  let llmsPages: LlmsTxtPage[] | null = null;
  return {
    name: DOCS_CHAT_PLUGIN_NAME,

    // Compiled components for the build, TypeScript sources for `swizzle --typescript`.
    getThemePath: () => join(packageDir, 'lib', options.search.navbar ? 'theme' : THEME_WITHOUT_SEARCH_BAR),
    getTypeScriptThemePath: () => join(packageDir, 'src', 'theme'),

    configureWebpack(config) {
      const alias = themeCommonAliases(config.resolve?.alias);
      return alias ? { resolve: { alias } } : {};
    },

    contentLoaded({ actions }) {
      actions.setGlobalData(toClientSettings(options));
      // A route of its own: its component (and the chart library) load only when the page is opened.
      if (options.insights.enabled) {
        requireChartLibrary();
        actions.addRoute({
          path: `${context.baseUrl.replace(/\/+$/, '')}${options.insights.path}`,
          component: join(packageDir, 'lib', 'insights', 'insights-route.js'),
          exact: true,
        });
      }
    },

    async allContentLoaded({ allContent }) {
      if (options.llmsTxt.enabled) llmsPages = collectLlmsPages(allContent, context.siteDir);
      if (!options.writePermalinks && !options.search.staticIndex) return;
      permalinks = collectPermalinks(allContent, context.siteDir);
      if (options.writePermalinks) await writePermalinksFile(join(context.generatedFilesDir, PERMALINKS_GENERATED_PATH), permalinks);
    },

    async postBuild({ outDir, baseUrl, siteConfig = context.siteConfig }) {
      // siteConfig is always there in a build; unit tests of the other outputs may leave it out.
      if (llmsPages !== null && siteConfig) {
        await writeLlmsFiles(
          outDir,
          { title: siteConfig.title, summary: options.llmsTxt.summary ?? siteConfig.tagline ?? '', url: siteConfig.url, baseUrl },
          llmsPages,
        );
      }
      if (permalinks === null) return;
      if (options.writePermalinks) await writePermalinksFile(join(outDir, PERMALINKS_BUILD_FILE), permalinks);
      if (options.search.staticIndex) await writeStaticSearchIndex(outDir, baseUrl, permalinks);
    },
  };
}

/** Writes llms.txt, llms-full.txt and the .md twins, and says so in the build log. */
async function writeLlmsFiles(outDir: string, site: Parameters<typeof writeLlmsTxt>[1], pages: LlmsTxtPage[]): Promise<void> {
  if (pages.length === 0) {
    console.warn(
      '[docs-chat] No docs for llms.txt: it lists the pages of @docusaurus/plugin-content-docs (the classic preset has it). Set llmsTxt to false to skip it.',
    );
    return;
  }
  const result = await writeLlmsTxt(outDir, site, pages);
  for (const { source, reason } of result.skipped) console.warn(`[docs-chat] Left out of llms.txt: ${source}: ${reason}.`);
  console.log(
    `[docs-chat] llms.txt: ${result.pages} pages, with llms-full.txt and a .md twin of each (${relative(process.cwd(), result.files.llmsTxt)}).`,
  );
}

/** Writes the static search index of the build's docs and says what it holds (build logs are what admins read). */
async function writeStaticSearchIndex(outDir: string, baseUrl: string, permalinks: PermalinksFile): Promise<void> {
  if (permalinks.docs.length === 0) {
    console.warn(
      '[docs-chat] No docs to put in the search index: search in the browser needs @docusaurus/plugin-content-docs (the classic preset has it). Set search.staticIndex to false to skip it.',
    );
    return;
  }
  const { written, skipped } = await writeSearchIndex(outDir, baseUrl, permalinks.docs);
  for (const { source, reason } of skipped) console.warn(`[docs-chat] Left out of the search index: ${source}: ${reason}.`);
  if (written === null) {
    console.warn(
      `[docs-chat] No search index written: none of the ${permalinks.docs.length} docs has a built page with docs content. Search in the browser will say it is unavailable.`,
    );
    return;
  }
  const gzipKilobytes = gzipSync(await readFile(written.indexFile)).length / 1024;
  console.log(
    `[docs-chat] Search index: ${written.manifest.pages} pages, ${written.manifest.sections} sections, ${gzipKilobytes.toFixed(1)} KB gzip (${relative(process.cwd(), written.indexFile)}).`,
  );
}

/**
 * uPlot draws the insights page's chart. It is an optional peer: only sites that turn the page on install it,
 * so the plugin adds no package to the others (issue 14's budget of at most 5 packages added to a site).
 */
function requireChartLibrary(): void {
  try {
    createRequire(join(packageDir, 'package.json')).resolve('uplot');
  } catch {
    throw new Error(
      '[docs-chat] The insights page (insights.enabled) draws its charts with uPlot: install it in your site with "npm install uplot@1.6.32", or turn the page off.',
    );
  }
}

/**
 * The answers render the site's CodeBlock inside a ColorModeProvider of our own
 * (see theme/MessageList/page-color-mode.tsx). React contexts only match when both
 * sides load the same module file, and with pnpm a plugin can see a different copy
 * of @docusaurus/theme-common than the theme does, so both of our imports resolve
 * to the copy beside the theme that provides CodeBlock. Returns null when no theme
 * provides CodeBlock (the answers then cannot show code blocks anyway).
 */
function themeCommonAliases(existing: unknown): Record<string, string> | null {
  if (existing === null || typeof existing !== 'object' || Array.isArray(existing)) return null;
  const codeBlock = (existing as Record<string, unknown>)['@theme-original/CodeBlock'];
  if (typeof codeBlock !== 'string') return null;
  try {
    const require = createRequire(join(dirname(codeBlock), 'index.js'));
    return {
      '@docusaurus/theme-common$': require.resolve('@docusaurus/theme-common'),
      '@docusaurus/theme-common/internal$': require.resolve('@docusaurus/theme-common/internal'),
    };
  } catch {
    return null;
  }
}

export { validateOptions, DEFAULT_OPTIONS, OPTIONS_SCHEMA } from './options.js';
export type { PluginOptions, Options, SearchOptions, LlmsTxtOptions, InsightsOptions } from './options.js';
export { getSwizzleConfig } from './swizzle-config.js';
export type { DocsChatSettings } from './client-settings/docs-chat-settings.js';
export type { PermalinksFile, PermalinkEntry } from './permalinks.js';
