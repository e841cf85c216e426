import { createRequire } from 'node:module';
import picomatch from 'picomatch';
import type { OptionValidationContext, ValidationSchema } from '@docusaurus/types';
import type { DocsChatSettings, PanelSide } from './client-settings/docs-chat-settings.js';
import { normalizeRoute } from './chat-client/launcher-routes.js';

/** Options a site passes in `plugins: [['@docs-chat/docusaurus-plugin', {...}]]`. */
export interface PluginOptions {
  id?: string;
  /** Base URL of the docs-chat server (`pnpm docs-chat serve`). */
  serverUrl: string;
  title: string | null;
  placeholder: string | null;
  welcomeMessage: string | null;
  suggestedQuestions: string[];
  selectionMode: boolean;
  contentSelector: string;
  /** e.g. "mod+i" (Ctrl on Windows/Linux, Cmd on macOS); false disables the shortcut. */
  shortcut: string | false;
  panel: { side: PanelSide; width: number };
  /**
   * Glob patterns of pages, under the site's base URL, where the launcher and the "Ask about selection"
   * offer are not shown (a landing page, the blog); the shortcut and the search box's "Ask" still open the panel.
   */
  hideLauncherOn: string[];
  /** Write the build's doc permalinks for the ingest (see permalinks.ts). */
  writePermalinks: boolean;
  search: SearchOptions;
  /** llms.txt, llms-full.txt and a .md twin of every doc page, written at build (see docs/guides/llms-txt). */
  llmsTxt: LlmsTxtOptions;
  insights: InsightsOptions;
}

export interface LlmsTxtOptions {
  enabled: boolean;
  /** The quote under the title in llms.txt; the site's tagline when null. */
  summary: string | null;
}

/** The insights page for docs owners (see docs/guides/insights); off by default. */
export interface InsightsOptions {
  enabled: boolean;
  /** Route of the page, e.g. "/docs-chat/insights". */
  path: string;
}

/** The search box and the static index (see docs/guides/search). */
export interface SearchOptions {
  /** The navbar search box (theme component SearchBar); false for a site that keeps Algolia DocSearch or another search. */
  navbar: boolean;
  /** Write a static search index at build, so search works in the browser when the server does not answer. */
  staticIndex: boolean;
}

export type Options = Partial<Omit<PluginOptions, 'panel' | 'search' | 'llmsTxt' | 'insights'>> & {
  panel?: Partial<PluginOptions['panel']>;
  search?: Partial<SearchOptions>;
  /** false turns llms.txt off. */
  llmsTxt?: Partial<LlmsTxtOptions> | boolean;
  insights?: Partial<InsightsOptions>;
};

export const MAX_SUGGESTED_QUESTIONS = 3;
export const MIN_PANEL_WIDTH = 280;
export const MAX_PANEL_WIDTH = 960;
export const MAX_HIDDEN_ROUTE_PATTERNS = 100;

export const DEFAULT_OPTIONS: Omit<PluginOptions, 'id'> = {
  serverUrl: 'http://localhost:8000',
  title: null,
  placeholder: null,
  welcomeMessage: null,
  suggestedQuestions: [],
  selectionMode: true,
  contentSelector: 'main',
  shortcut: 'mod+i',
  panel: { side: 'right', width: 420 },
  hideLauncherOn: [],
  writePermalinks: true,
  search: { navbar: true, staticIndex: true },
  llmsTxt: { enabled: true, summary: null },
  insights: { enabled: false, path: '/docs-chat/insights' },
};

// The chat shortcuts that are the search box's shortcut (client-settings/search-shortcut.ts) on some platform.
const SEARCH_SHORTCUT_EQUIVALENTS = new Set(['mod+k', 'ctrl+k', 'meta+k']);

// utils-validation is CommonJS: Node's ESM loader cannot see its named exports and
// Docusaurus' own loader (jiti) has no default export for it, so require it directly.
const { Joi } = createRequire(import.meta.url)('@docusaurus/utils-validation') as typeof import('@docusaurus/utils-validation');

const MODIFIERS = ['mod', 'ctrl', 'meta', 'alt', 'shift'];
// One or more modifiers then a single key name: "mod+i", "ctrl+shift+k", "alt+/".
const SHORTCUT_PATTERN = new RegExp(`^((${MODIFIERS.join('|')})\\+)+[a-z0-9/.,;'\`\\[\\]=-]$`, 'i');
const SHORTCUT_HELP = `"shortcut" must be modifiers and one key joined by "+", e.g. "mod+i" or "ctrl+shift+k" (modifiers: ${MODIFIERS.join(', ')}; "mod" is Cmd on macOS and Ctrl elsewhere), or false to disable it.`;

const optionalText = (name: string, maxLength: number) =>
  Joi.string()
    .trim()
    .min(1)
    .max(maxLength)
    .allow(null)
    .default(null)
    .messages({
      'string.empty': `"${name}" must not be empty: remove the option to use the translated default.`,
      'string.max': `"${name}" must be at most ${maxLength} characters.`,
      'string.base': `"${name}" must be a string (or remove it to use the translated default).`,
    });

export const OPTIONS_SCHEMA: ValidationSchema<PluginOptions> = Joi.object<PluginOptions>({
  id: Joi.string(),
  serverUrl: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default(DEFAULT_OPTIONS.serverUrl)
    .messages({
      'string.uri':
        '"serverUrl" must be an absolute http(s) URL of the docs-chat server, e.g. "https://chat.example.com" or "http://localhost:8000".',
      'string.uriCustomScheme': '"serverUrl" must start with http:// or https://, e.g. "http://localhost:8000".',
      'string.base': '"serverUrl" must be a string such as "http://localhost:8000".',
      // Typically `serverUrl: process.env.DOCS_CHAT_SERVER_URL` with the variable set but empty.
      'string.empty':
        '"serverUrl" is empty: set it (or the environment variable it reads) to the docs-chat server\'s URL as readers\' browsers reach it, e.g. "https://chat.example.com", or leave it out for "http://localhost:8000".',
    }),
  title: optionalText('title', 80),
  placeholder: optionalText('placeholder', 120),
  welcomeMessage: optionalText('welcomeMessage', 1000),
  suggestedQuestions: Joi.array()
    .items(Joi.string().trim().min(1).max(200))
    .max(MAX_SUGGESTED_QUESTIONS)
    .default(DEFAULT_OPTIONS.suggestedQuestions)
    .messages({
      'array.max': `"suggestedQuestions" holds at most ${MAX_SUGGESTED_QUESTIONS} questions: keep the ones readers ask most.`,
      'array.base': '"suggestedQuestions" must be an array of strings, e.g. ["How do I install it?"].',
      'string.empty': 'Each entry of "suggestedQuestions" must be a non-empty question.',
      'string.max': 'Each entry of "suggestedQuestions" must be at most 200 characters.',
    }),
  selectionMode: Joi.boolean().default(DEFAULT_OPTIONS.selectionMode).messages({
    'boolean.base': '"selectionMode" must be true (offer to ask about selected text) or false.',
  }),
  contentSelector: Joi.string().trim().min(1).default(DEFAULT_OPTIONS.contentSelector).messages({
    'string.empty': '"contentSelector" must be a CSS selector of the page content, e.g. "main" or "article".',
  }),
  shortcut: Joi.alternatives()
    .try(Joi.string().trim().pattern(SHORTCUT_PATTERN).messages({ 'string.pattern.base': SHORTCUT_HELP }), Joi.valid(false))
    .default(DEFAULT_OPTIONS.shortcut)
    .messages({ 'alternatives.match': SHORTCUT_HELP, 'alternatives.types': SHORTCUT_HELP }),
  panel: Joi.object({
    side: Joi.string().valid('left', 'right').default(DEFAULT_OPTIONS.panel.side).messages({
      'any.only': '"panel.side" must be "left" or "right".',
    }),
    width: Joi.number()
      .integer()
      .min(MIN_PANEL_WIDTH)
      .max(MAX_PANEL_WIDTH)
      .default(DEFAULT_OPTIONS.panel.width)
      .messages({
        'number.min': `"panel.width" is in CSS pixels and must be at least ${MIN_PANEL_WIDTH}.`,
        'number.max': `"panel.width" is in CSS pixels and must be at most ${MAX_PANEL_WIDTH}; phones get a full-screen panel anyway.`,
        'number.base': '"panel.width" must be a number of CSS pixels, e.g. 420.',
        'number.integer': '"panel.width" must be a whole number of CSS pixels.',
      }),
  })
    .default(DEFAULT_OPTIONS.panel)
    .messages({
      'object.base': '"panel" must be an object with "side" ("left" or "right") and "width" (CSS pixels), e.g. side: "right", width: 420.',
    }),
  hideLauncherOn: Joi.array()
    .items(
      Joi.string()
        .trim()
        .max(300)
        .pattern(/^\/[^#?\s]*$/)
        .messages({
          'string.pattern.base': `Each entry of "hideLauncherOn" must be a page path starting with "/", under the site's base URL, without "?", "#" or spaces, e.g. "/" (the home page) or "/blog/**" (every blog page); got {#value}.`,
          'string.empty': 'Each entry of "hideLauncherOn" must be a page path such as "/blog/**", not an empty string.',
          'string.max': 'Each entry of "hideLauncherOn" must be at most 300 characters.',
          'string.base': 'Each entry of "hideLauncherOn" must be a string such as "/blog/**".',
        }),
    )
    .max(MAX_HIDDEN_ROUTE_PATTERNS)
    .default(DEFAULT_OPTIONS.hideLauncherOn)
    .messages({
      'array.base': '"hideLauncherOn" must be an array of page paths, e.g. ["/", "/blog/**"].',
      'array.max': `"hideLauncherOn" holds at most ${MAX_HIDDEN_ROUTE_PATTERNS} patterns: use "*" (one path segment) and "**" (any depth) to cover more pages with one.`,
    }),
  writePermalinks: Joi.boolean().default(DEFAULT_OPTIONS.writePermalinks),
  search: Joi.object({
    navbar: Joi.boolean().default(DEFAULT_OPTIONS.search.navbar).messages({
      'boolean.base':
        '"search.navbar" must be true (docs-chat\'s search box in the navbar) or false (keep the site\'s own search, e.g. Algolia DocSearch).',
    }),
    staticIndex: Joi.boolean().default(DEFAULT_OPTIONS.search.staticIndex).messages({
      'boolean.base': '"search.staticIndex" must be true (write a search index at build, for search without the server) or false.',
    }),
  })
    .default(DEFAULT_OPTIONS.search)
    .messages({
      'object.base':
        '"search" must be an object with navbar and staticIndex, each true or false (e.g. navbar: false for a site that keeps Algolia DocSearch).',
      'object.unknown': 'Unknown option {#label}: "search" takes navbar and staticIndex.',
    }),
  llmsTxt: Joi.alternatives()
    .try(
      Joi.boolean(),
      Joi.object({
        enabled: Joi.boolean().default(DEFAULT_OPTIONS.llmsTxt.enabled).messages({
          'boolean.base': '"llmsTxt.enabled" must be true (write llms.txt, llms-full.txt and .md twins at build) or false.',
        }),
        summary: optionalText('llmsTxt.summary', 500),
      }).messages({ 'object.unknown': 'Unknown option {#label}: "llmsTxt" takes enabled and summary.' }),
    )
    .default(DEFAULT_OPTIONS.llmsTxt)
    .messages({
      'alternatives.types':
        '"llmsTxt" must be false (no llms.txt), true, or an object with enabled (true or false) and summary (the line under the title), e.g. summary: "Docs of Acme, the billing API."',
      'alternatives.match':
        '"llmsTxt" must be false (no llms.txt), true, or an object with enabled (true or false) and summary (the line under the title), e.g. summary: "Docs of Acme, the billing API."',
    }),
  insights: Joi.object({
    enabled: Joi.boolean().default(DEFAULT_OPTIONS.insights.enabled).messages({
      'boolean.base': '"insights.enabled" must be true (add the insights page for docs owners) or false.',
    }),
    path: Joi.string()
      .pattern(/^\/[A-Za-z0-9/_-]*$/)
      .default(DEFAULT_OPTIONS.insights.path)
      .messages({
        'string.pattern.base':
          '"insights.path" must be a route starting with "/", made of letters, digits, "-", "_" and "/", e.g. "/docs-chat/insights".',
      }),
  })
    .default(DEFAULT_OPTIONS.insights)
    .messages({
      'object.base': '"insights" must be an object with enabled (true or false) and path, e.g. enabled: true, path: "/docs-chat/insights".',
      'object.unknown': 'Unknown option {#label}: "insights" takes enabled and path.',
    }),
})
  .custom((options: PluginOptions, helpers) => {
    // `llmsTxt: false | true` is short for `{ enabled }`.
    const llmsTxt = options.llmsTxt as PluginOptions['llmsTxt'] | boolean;
    if (typeof llmsTxt === 'boolean') options.llmsTxt = { enabled: llmsTxt, summary: null };
    if (options.search.navbar && options.shortcut !== false && SEARCH_SHORTCUT_EQUIVALENTS.has(options.shortcut.toLowerCase())) {
      return helpers.message({
        custom: `"shortcut" ${JSON.stringify(options.shortcut)} is the search box's shortcut (Ctrl+K, ⌘K on macOS): choose another, e.g. "mod+i", or set search.navbar to false.`,
      });
    }
    return options;
  })
  .messages({
    'object.unknown':
      'Unknown docs-chat option {#label}: the options are serverUrl, title, placeholder, welcomeMessage, suggestedQuestions, selectionMode, contentSelector, shortcut, panel, hideLauncherOn, writePermalinks, search, llmsTxt, insights.',
  });

/** Docusaurus calls this with the site's options before the plugin starts. */
export function validateOptions({ validate, options }: OptionValidationContext<Options | undefined, PluginOptions>): PluginOptions {
  return validate(OPTIONS_SCHEMA, options ?? {});
}

/** The part of the options the browser needs, kept small: it ships with every page. */
export function toClientSettings(options: PluginOptions): DocsChatSettings {
  return {
    serverUrl: options.serverUrl.replace(/\/+$/, ''),
    title: options.title,
    placeholder: options.placeholder,
    welcomeMessage: options.welcomeMessage,
    suggestedQuestions: options.suggestedQuestions,
    selectionMode: options.selectionMode,
    contentSelector: options.contentSelector,
    shortcut: options.shortcut === false ? null : options.shortcut.toLowerCase(),
    panel: options.panel,
    hideLauncherOn: options.hideLauncherOn.map(compileRoutePattern),
    search: { staticIndex: options.search.staticIndex },
  };
}

/**
 * A `hideLauncherOn` glob as a regular expression source for the browser. picomatch at build keeps the
 * glob library out of the pages (the launcher's budget is 15 KB of JavaScript); `dot` lets `*` match
 * segments such as `/v1.2`. Patterns are normalised like the paths they meet (launcher-routes.ts).
 */
export function compileRoutePattern(pattern: string): string {
  return picomatch.makeRe(normalizeRoute(pattern), { dot: true }).source;
}
