// One Jest run for the whole workspace; each package is a project so that
// browser-side code can use jsdom while the rest runs under node.
const swcTransform = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', tsx: true },
      target: 'es2022',
      transform: { react: { runtime: 'automatic' } },
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const common = {
  extensionsToTreatAsEsm: ['.ts', '.tsx'],
  transform: { '^.+\\.(t|j)sx?$': swcTransform },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
};

/** @type {import('jest').Config} */
export default {
  testTimeout: 30000,
  // Jest's default on two cores is one worker (cores - 1). CI has a budget of about 25 minutes;
  // two workers took the fresh-clone run from about 36 to about 28 minutes on this 2-core host.
  maxWorkers: 2,
  projects: [
    {
      ...common,
      displayName: 'core',
      testMatch: ['<rootDir>/packages/core/src/**/*.test.ts', '<rootDir>/packages/protocol/src/**/*.test.ts'],
    },
    { ...common, displayName: 'stand-ins', testMatch: ['<rootDir>/packages/stand-ins/src/**/*.test.ts'] },
    { ...common, displayName: 'server', testMatch: ['<rootDir>/packages/server/src/**/*.test.ts'] },
    { ...common, displayName: 'eval', testMatch: ['<rootDir>/eval/src/**/*.test.ts'] },
    // docs-site's own modules (its code themes); the browser suite is the e2e project below.
    { ...common, displayName: 'docs-site', testMatch: ['<rootDir>/docs-site/src/**/*.test.ts'] },
    // What a user installs: the packed packages with plain npm in temp folders outside the
    // workspace (a fresh Docusaurus site with the plugin, the server's CLI). Minutes, not seconds.
    { ...common, displayName: 'install', testMatch: ['<rootDir>/eval/src/install/**/*.install-test.ts'], testTimeout: 20 * 60_000 },
    {
      // The built docs-site in headless Chromium against the real server on offline defaults, plus the
      // citation URL check; the global setup builds the site and ingests its docs once for both.
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/docs-site/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/docs-site/e2e/global-setup.mjs',
      globalTeardown: '<rootDir>/docs-site/e2e/global-teardown.mjs',
    },
    {
      // The Docusaurus plugin's widget: jsdom plus Node's fetch and streams, with Docusaurus'
      // own modules (@theme/*, @docusaurus/*) mapped to small doubles since only its webpack resolves them.
      ...common,
      displayName: 'plugin',
      testMatch: ['<rootDir>/packages/docusaurus-plugin/src/**/*.test.{ts,tsx}'],
      testEnvironment: '<rootDir>/packages/docusaurus-plugin/jest/jsdom-fetch-environment.mjs',
      setupFilesAfterEnv: ['<rootDir>/packages/docusaurus-plugin/jest/setup-after-env.ts'],
      moduleNameMapper: {
        '^@theme/(Root|ChatWidget|ChatPanel|MessageList|InputBox|SelectionMode|SourceList|SearchBar|SearchModal|SearchResults|PanelSearch|OfflineAnswer)$':
          '<rootDir>/packages/docusaurus-plugin/src/theme/$1/index.tsx',
        '^@theme/CodeBlock$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/docusaurus/code-block.tsx',
        '^@docusaurus/theme-common(/internal)?$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/docusaurus/theme-common.tsx',
        '^@docusaurus/Link$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/docusaurus/link.tsx',
        '^@docusaurus/Translate$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/docusaurus/translate.tsx',
        '^@docusaurus/useGlobalData$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/docusaurus/use-global-data.ts',
        '^@docusaurus/useBaseUrl$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/docusaurus/use-base-url.ts',
        '^@docusaurus/router$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/docusaurus/router.ts',
        '^@docusaurus/useDocusaurusContext$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/docusaurus/use-docusaurus-context.ts',
        '\\.module\\.css$': '<rootDir>/packages/docusaurus-plugin/src/test-doubles/css-module.ts',
        // Ejectable components import the chat client by package name, as a swizzled copy would.
        '^@docs-chat/docusaurus-plugin/chat-client$': '<rootDir>/packages/docusaurus-plugin/src/chat-client/index.ts',
        '^@docs-chat/docusaurus-plugin/search-client$': '<rootDir>/packages/docusaurus-plugin/src/search-client/index.ts',
        ...common.moduleNameMapper,
      },
    },
  ],
};
