import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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

const packageDir = join(fileURLToPath(new URL('.', import.meta.url)), '..');

/** The Docusaurus plugin: a chat widget on every page, plus the permalinks hand-off for the ingest. */
export default function docsChatPlugin(context: LoadContext, options: PluginOptions): Plugin<void> {
  let permalinks: PermalinksFile | null = null;
  return {
    name: DOCS_CHAT_PLUGIN_NAME,

    // Compiled components for the build, TypeScript sources for `swizzle --typescript`.
    getThemePath: () => join(packageDir, 'lib', 'theme'),
    getTypeScriptThemePath: () => join(packageDir, 'src', 'theme'),

    configureWebpack(config) {
      const alias = themeCommonAliases(config.resolve?.alias);
      return alias ? { resolve: { alias } } : {};
    },

    contentLoaded({ actions }) {
      actions.setGlobalData(toClientSettings(options));
    },

    async allContentLoaded({ allContent }) {
      if (!options.writePermalinks) return;
      permalinks = collectPermalinks(allContent, context.siteDir);
      await writePermalinksFile(join(context.generatedFilesDir, PERMALINKS_GENERATED_PATH), permalinks);
    },

    async postBuild({ outDir }) {
      if (!options.writePermalinks || permalinks === null) return;
      await writePermalinksFile(join(outDir, PERMALINKS_BUILD_FILE), permalinks);
    },
  };
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
export type { PluginOptions, Options } from './options.js';
export { getSwizzleConfig } from './swizzle-config.js';
export type { DocsChatSettings } from './client-settings/docs-chat-settings.js';
export type { PermalinksFile, PermalinkEntry } from './permalinks.js';
