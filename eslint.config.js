// ESLint for the whole workspace: `pnpm lint`. Type-aware rules use the TypeScript project service, which
// finds each file's nearest tsconfig.json (root, plugin, docs-site, e2e) the way an editor does.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Build output, generated sites and vendored fixtures: nothing here is written by hand.
    ignores: [
      '**/node_modules/',
      '**/lib/',
      '**/dist/',
      '**/build/',
      '**/.docusaurus/',
      '**/coverage/',
      'eval/results/',
      'eval/scratch/',
      'packages/*/scratch/',
      'test-artifacts/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `async` marks a Promise-returning contract (Fastify plugins, store and embedder interfaces, test doubles) and
      // turns a throw into a rejection, which dropping `async` from a body with no `await` would lose.
      '@typescript-eslint/require-await': 'off',
      // Passing on a caught value or an abort signal's reason (typed any/unknown) keeps what the caller gave; a literal
      // or a known non-Error is still reported.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // `_`-prefixed names mark parameters an interface requires but this implementation does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    // Plain JavaScript (build scripts, the CLI shim, jest.config.js): no types to check against.
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The docs site's unit tests: no tsconfig.json includes them, and the @jest/globals they import resolves only
    // inside Jest (the docs site does not depend on it), so there are no types to check against.
    files: ['docs-site/src/**/*.test.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The widget, the search box and the docs site's pages run in the reader's browser.
    files: ['packages/docusaurus-plugin/src/**/*.{ts,tsx}', 'docs-site/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    ...jsxA11y.flatConfigs.recommended,
    plugins: { ...reactHooks.configs.flat.recommended.plugins, ...jsxA11y.flatConfigs.recommended.plugins },
    languageOptions: {
      ...jsxA11y.flatConfigs.recommended.languageOptions,
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      // A missing dependency is a stale-closure bug: an error, not a warning that scrolls past.
      'react-hooks/exhaustive-deps': 'error',
      // React Compiler rules. The hooks keep the latest props and state in a ref assigned during render so their
      // callbacks keep one identity; useEffectEvent, which replaces that pattern, needs React 19.2 and the plugin
      // supports React 18.
      'react-hooks/refs': 'off',
      // The flagged effects set the first state of what they start (a fetch, a timer, a subscription) or read what
      // exists only in the browser after hydration (storage, the address, the platform); render cannot do either.
      'react-hooks/set-state-in-effect': 'off',
    },
  },
  {
    // Regions that scroll (the message list, result lists, wide tables) take tabIndex 0 so the keyboard can scroll
    // them (WCAG 2.1.1); the rule has no notion of a scrolling container.
    files: [
      'docs-site/src/theme/MDXComponents.tsx',
      'packages/docusaurus-plugin/src/theme/MessageList/{index,markdown-view}.tsx',
      'packages/docusaurus-plugin/src/theme/{PanelSearch,SearchModal}/index.tsx',
    ],
    rules: { 'jsx-a11y/no-noninteractive-tabindex': 'off' },
  },
  {
    // Dialogs take Escape and the focus trap on their container, as the WAI-ARIA dialog pattern does; the rule
    // allows that only on a <dialog> element.
    files: ['packages/docusaurus-plugin/src/theme/{ChatPanel,SearchModal}/index.tsx'],
    rules: { 'jsx-a11y/no-noninteractive-element-interactions': 'off' },
  },
  {
    // Focus stays in the search input (aria-activedescendant) and in the menu's items (roving focus): the listbox
    // options and the menu container are never focused themselves, and the keys are handled where focus is.
    files: [
      'packages/docusaurus-plugin/src/theme/SearchResults/index.tsx',
      'packages/docusaurus-plugin/src/theme/ChatPanel/conversation-menu.tsx',
    ],
    rules: { 'jsx-a11y/interactive-supports-focus': 'off', 'jsx-a11y/click-events-have-key-events': 'off' },
  },
  {
    // Tests: @types/jest types the asymmetric matchers (expect.any, expect.stringContaining, ...) as `any`.
    files: ['**/*.test.{ts,tsx}', 'docs-site/e2e/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off', '@typescript-eslint/no-unsafe-argument': 'off' },
  },
  {
    // Browser callbacks the end-to-end suite hands to page.evaluate.
    files: ['docs-site/e2e/**/*.ts'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
  },
  // Last: turns off the stylistic rules that Prettier owns.
  prettier,
);
