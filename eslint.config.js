import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import revloop from './eslint-rules/layers.mjs';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'packages/*/dist/**', 'packages/*/node_modules/**', '.revloop/**', 'test/.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
      'no-misleading-character-class': 'off',
    },
  },
  {
    // Browser code (BROWSER_FOLDERS in src/html/bundle.ts): the viewer's app, the report's script and
    // what they share, bundled by esbuild into the pages. A value import brings its module into the
    // bundle, so only browser code is imported for values; the server's API and payload types are
    // imported with `import type`. Node's globals do not exist there.
    files: ['src/html/client/**/*.ts', 'src/report/client/**/*.ts', 'src/viewer/app/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./[^/]+$)(?!\\.\\./\\.\\./html/client/[^/]+$)',
              allowTypeImports: true,
              message:
                'browser code imports values only from its own folder and src/html/client (they are bundled into the page); import server-side types with `import type`',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'setImmediate', 'require', 'module', '__dirname', '__filename', 'global'].map((name) => ({
          name,
          message: 'browser code runs in the page: no Node globals',
        })),
      ],
    },
  },
  {
    // Layers import downward only, sibling modules stay apart, no folder cycles (eslint-rules/layers.mjs).
    files: ['src/**/*.{ts,mts,js,mjs}'],
    plugins: { revloop },
    rules: {
      'revloop/layers': [
        'error',
        {
          // Accepted violations ("from -> to"); empty, and an entry that stops occurring is an error.
          known: [],
        },
      ],
    },
  },
  {
    // The revise package (packages/revise) runs anywhere: its runtime path imports only its own
    // modules (no `node:` built-ins, no dependencies: the optional peers are loaded by non-literal
    // specifiers) and uses no Node globals. Its own layers: revise (revise(), verifiers, AI SDK
    // adapters) > kernel (the loop, stop conditions) > policy (messages, recurrence, bans); the
    // files at its root (errors, str.strip, the model interface) are shared by all three.
    files: ['packages/revise/src/**/*.ts'],
    plugins: { revloop },
    rules: {
      'revloop/layers': [
        'error',
        { root: 'packages/revise/src', layers: ['revise', 'kernel', 'policy'], rootEntries: ['index.ts'], known: [] },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\.{1,2}/)',
              message:
                'the revise package imports only its own modules (no node: built-ins, no dependencies; optional peers by a non-literal import())',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'setImmediate', 'require', 'module', '__dirname', '__filename', 'global'].map((name) => ({
          name,
          message: 'the revise package uses Web APIs only (it runs in browsers and edge functions)',
        })),
      ],
    },
  },
);
