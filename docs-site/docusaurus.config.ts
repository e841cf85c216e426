import { darkCodeTheme, lightCodeTheme } from './src/prism-themes';
import type { Config } from '@docusaurus/types';
import type * as Preset from '@docusaurus/preset-classic';
import type { Options as DocsChatOptions } from '@docs-chat/docusaurus-plugin';

// This file runs in Node.js at build time: keep it free of browser code.

const config: Config = {
  title: 'docs-chat',
  tagline: 'Ask the docs: streamed, cited answers beside every page of your Docusaurus site',
  favicon: 'img/favicon.svg',

  future: {
    v4: true,
    // Rspack and SWC through @docusaurus/faster: builds several times faster than webpack + Babel.
    faster: true,
  },

  url: process.env.DOCS_SITE_URL ?? 'http://localhost:3000',
  // Set at build time to serve the site under a sub-path; the end-to-end suite also builds it with
  // DOCS_SITE_BASE_URL=/handbook/ and both trailing-slash settings to check that search results land.
  baseUrl: process.env.DOCS_SITE_BASE_URL ?? '/',
  ...(process.env.DOCS_SITE_TRAILING_SLASH ? { trailingSlash: process.env.DOCS_SITE_TRAILING_SLASH === 'true' } : {}),

  // A broken link or anchor would also be a broken citation target for the chatbot: fail the build.
  onBrokenLinks: 'throw',
  onBrokenAnchors: 'throw',
  onDuplicateRoutes: 'throw',

  markdown: {
    // Keep the plain `## Heading {#custom-id}` syntax (the v4 flag would require `\{#id}` in MDX):
    // it is what most Docusaurus sites write and what the docs-chat ingest reads.
    mdx1Compat: {
      comments: true,
      admonitions: true,
      headingIds: true,
    },
    hooks: {
      onBrokenMarkdownLinks: 'throw',
      onBrokenMarkdownImages: 'throw',
    },
  },

  // A second locale and an older docs version show the widget's scoping in the demo: a reader on /fr/ or
  // on /docs/0.1/ gets answers from that language and version (ingest with `--site`, see scripts/demo.mjs).
  // DOCS_SITE_LOCALES=en builds one locale only (the end-to-end suite does, to keep its builds short).
  i18n: {
    defaultLocale: 'en',
    locales: process.env.DOCS_SITE_LOCALES ? process.env.DOCS_SITE_LOCALES.split(',') : ['en', 'fr'],
    localeConfigs: {
      en: { label: 'English' },
      fr: { label: 'Français' },
    },
  },

  presets: [
    [
      'classic',
      {
        docs: {
          // The ingest computes page URLs from this; keep DOCS_ROUTE_BASE_PATH in sync if it changes.
          routeBasePath: '/docs',
          sidebarPath: './sidebars.ts',
          // The guide in development stays at /docs/; the 0.1 release is kept at /docs/0.1/.
          lastVersion: 'current',
          versions: {
            current: { label: 'Next' },
            '0.1': { label: '0.1', banner: 'unmaintained' },
          },
        },
        blog: false,
        theme: {
          customCss: './src/css/custom.css',
        },
      } satisfies Preset.Options,
    ],
  ],

  // DOCS_CHAT_PLUGIN=off builds the site without the widget: eval/src/bench-bundle.ts compares both builds
  // to measure what the widget adds to a page.
  plugins:
    process.env.DOCS_CHAT_PLUGIN === 'off'
      ? []
      : [
          [
            '@docs-chat/docusaurus-plugin',
            {
              // Fixed at build time: set DOCS_CHAT_SERVER_URL when building for another environment.
              serverUrl: process.env.DOCS_CHAT_SERVER_URL ?? 'http://localhost:8000',
              title: 'Ask the docs-chat guide',
              suggestedQuestions: [
                'How do I add the chat widget to my Docusaurus site?',
                'Which environment variables switch the vector store to Qdrant?',
                'Why does the ingest tell me to use --rebuild?',
              ],
            } satisfies DocsChatOptions,
          ],
        ],

  themeConfig: {
    colorMode: {
      defaultMode: 'light',
      respectPrefersColorScheme: true,
    },
    navbar: {
      title: 'docs-chat',
      logo: {
        alt: 'docs-chat logo',
        src: 'img/logo.svg',
      },
      items: [
        { type: 'docSidebar', sidebarId: 'guide', position: 'left', label: 'Guide' },
        { to: '/docs/reference/http-api', label: 'HTTP API', position: 'left' },
        { to: '/docs/troubleshooting', label: 'Troubleshooting', position: 'left' },
        { type: 'docsVersionDropdown', position: 'right' },
        { type: 'localeDropdown', position: 'right' },
      ],
    },
    footer: {
      style: 'dark',
      links: [
        {
          title: 'Start',
          items: [
            { label: 'Introduction', to: '/docs/intro' },
            { label: 'Quick start', to: '/docs/getting-started/quick-start' },
            { label: 'Add docs-chat to your site', to: '/docs/getting-started/add-to-your-site' },
          ],
        },
        {
          title: 'Reference',
          items: [
            { label: 'Plugin options', to: '/docs/reference/plugin-options' },
            { label: 'Configuration', to: '/docs/reference/configuration' },
            { label: 'HTTP API', to: '/docs/reference/http-api' },
          ],
        },
        {
          title: 'Operate',
          items: [
            { label: 'Docker Compose', to: '/docs/deployment/docker-compose' },
            { label: 'Operations', to: '/docs/deployment/operations' },
            { label: 'Troubleshooting', to: '/docs/troubleshooting' },
          ],
        },
      ],
      copyright: `docs-chat is open source under the MIT licence. Built with Docusaurus.`,
    },
    prism: {
      theme: lightCodeTheme,
      darkTheme: darkCodeTheme,
      additionalLanguages: ['bash', 'docker', 'ini', 'nginx', 'http'],
    },
  } satisfies Preset.ThemeConfig,
};

export default config;
