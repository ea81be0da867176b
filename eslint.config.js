// @ts-check
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import vue from 'eslint-plugin-vue';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const ENGINE = ['store', 'query', 'api', 'sync', 'alerts', 'demo', 'cli', 'rpc', 'engine'].map(
  (part) => `electron/${part}/**/*.ts`,
);

/** DESIGN.md §1: layers are folders; these rules keep them honest. */
const electronBan = {
  name: 'electron',
  message: 'Only the shell (electron/main, electron/preload) may import electron.',
};
/** `electron` and its subpaths (`electron/main`, `electron/renderer`, …). */
const electronPaths = { group: ['electron/*'], message: electronBan.message };
/** Node built-ins by bare name (`fs`) or with the `node:` prefix. */
const nodeBuiltins = [...builtinModules.filter((name) => !name.startsWith('_')), 'node:*'];
const shellBan = {
  group: ['**/main/**', '**/preload/**', '**/renderer/**'],
  message: 'Engine code never imports the shell or the renderer (DESIGN.md §1).',
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-output/**', '**/.bench-data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronBan],
          patterns: [
            electronPaths,
            {
              group: ['**/electron/**', '**/renderer/**', ...nodeBuiltins],
              message: 'shared/ imports nothing of ours and no Node built-ins.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [electronBan],
          patterns: [
            electronPaths,
            {
              group: ['**/electron/**', ...nodeBuiltins],
              message: 'The renderer imports only shared/ (DESIGN.md §1).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ENGINE,
    rules: {
      'no-restricted-imports': ['error', { paths: [electronBan], patterns: [electronPaths, shellBan] }],
    },
  },
  prettier,
);
