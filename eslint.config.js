// ESLint (`npm run lint`, part of `npm test`, zero warnings allowed). Formatting is Prettier's
// (`npm run format`); these rules look for defects. The type-aware ones run with the TypeScript
// program of tsconfig.json: a promise nobody awaits or catches, a promise where a callback's
// answer is read, and `any` flowing unchecked into the server's and the SDK's code.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The code merchants run or depend on: `any` may not flow through it unchecked (tests and the conformance suite read answers as `any` on purpose). */
const PRODUCT = ['server/**/*.ts', 'sdk/src/**/*.ts', 'web/**/*.ts'];

export default tseslint.config(
  { ignores: ['generated/', 'dist/', 'sdk/dist/', 'conformance/dist/', 'node_modules/', 'out/', '.data/', 'coverage/', 'openapi/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Response bodies and rows read in tests are `any` on purpose; the unsafe-any rules hold in PRODUCT below.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: PRODUCT,
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
    },
  },
  { files: ['web/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
  { files: ['**/*.mjs', '**/*.cjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } } },
  prettier,
);
