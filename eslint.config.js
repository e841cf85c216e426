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
        projectService: {
          // The docs site's unit tests: its tsconfig.json leaves them to Jest (they use the root's Jest types).
          allowDefaultProject: ['docs-site/src/*.test.ts'],
          defaultProject: 'tsconfig.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_`-prefixed names mark parameters an interface requires but this implementation does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Plain JavaScript (build scripts, the CLI shim, jest.config.js): no types to check against.
    files: ['**/*.{js,mjs,cjs}'],
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
    },
  },
  {
    // Browser callbacks the end-to-end suite hands to page.evaluate.
    files: ['docs-site/e2e/**/*.ts'],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
  },
  // Last: turns off the stylistic rules that Prettier owns.
  prettier,
);
