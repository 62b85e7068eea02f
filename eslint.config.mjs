// Type-checked linting. machines/ stays pure (xstate only); runtime/ never reaches into adapters/ or the SDK.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

export default tseslint.config(
  { ignores: ['dist/**', 'dist-api-temp/**', 'dist-bench/**', 'node_modules/**', 'coverage/**', 'artifacts/**', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    // The sources import `./x.js` for `./x.ts` (NodeNext): resolved so, or the import rules (the
    // layer zones, no-cycle) would see no file behind any relative import.
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json', '.node'], extensionAlias: { '.js': ['.ts', '.js'] } })] },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // A cycle is a fault of the product's layering. Test files and benches import the product and the
    // fixtures, never one another, and checking them walked the import graph again per file: half
    // of lint's time went there.
    files: ['machines/**/*.ts', 'runtime/**/*.ts', 'adapters/**/*.ts', 'index.ts', 'test/fixtures/**/*.ts'],
    rules: { 'import-x/no-cycle': 'error' },
  },
  {
    files: ['machines/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!xstate$|\\.{1,2}/).*', message: 'machines/ imports only xstate.' }] }],
    },
  },
  {
    files: ['runtime/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/adapters/**', '@modelcontextprotocol/*'], message: 'runtime/ never imports adapters/ or the MCP SDK.' },
            // A worker runs durable handlers from runtime/handlers: it never loads the diagram layout.
            { group: ['@dagrejs/*', 'mermaid'], message: 'runtime/ never loads the diagram layout (the inspector does).' },
          ],
        },
      ],
    },
  },
  // The layers (docs/architecture.md): machines ← runtime ← adapters/{dialects, wire} ← one folder
  // per SDK line (server, then client) ← adapters/http ← adapters/inspector ← adapters/cli. No file
  // imports a layer above its own, and no SDK adapter imports another SDK line's folder.
  {
    files: ['machines/**/*.ts', 'runtime/**/*.ts', 'adapters/**/*.ts', 'index.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './machines', from: ['./runtime', './adapters', './index.ts'], message: 'machines/ is the bottom layer.' },
            { target: './runtime', from: ['./adapters', './index.ts'], message: 'runtime/ never imports adapters/.' },
            // Except the shape of a machine's graph: plain JSON the runtime stores and shares for them.
            { target: ['./runtime/*.ts', './runtime/!(handlers)/**'], from: './runtime/handlers', except: ['./machine-graph.types.ts'], message: 'durable handlers sit on the runtime, not in it.' },
            { target: ['./adapters/dialects', './adapters/*.ts'], from: ['./adapters/wire', './adapters/mcp-server', './adapters/mcp-server-v2', './adapters/mcp-client', './adapters/mcp-client-v2', './adapters/http', './adapters/inspector', './adapters/cli'], message: 'adapters/dialects imports only the runtime.' },
            { target: './adapters/wire', from: ['./adapters/mcp-server', './adapters/mcp-server-v2', './adapters/mcp-client', './adapters/mcp-client-v2', './adapters/http', './adapters/inspector', './adapters/cli'], message: 'adapters/wire is below every SDK adapter.' },
            { target: './adapters/mcp-server', from: ['./adapters/mcp-server-v2', './adapters/mcp-client', './adapters/mcp-client-v2', './adapters/http', './adapters/inspector', './adapters/cli'], message: 'an SDK adapter imports no other SDK line, and nothing above it.' },
            { target: './adapters/mcp-server-v2', from: ['./adapters/mcp-server', './adapters/mcp-client', './adapters/mcp-client-v2', './adapters/http', './adapters/inspector', './adapters/cli'], message: 'an SDK adapter imports no other SDK line, and nothing above it.' },
            { target: './adapters/mcp-client', from: ['./adapters/mcp-server-v2', './adapters/mcp-client-v2', './adapters/http', './adapters/inspector', './adapters/cli'], message: 'an SDK adapter imports no other SDK line, and nothing above it.' },
            { target: './adapters/mcp-client-v2', from: ['./adapters/mcp-server', './adapters/mcp-client', './adapters/http', './adapters/inspector', './adapters/cli'], message: 'an SDK adapter imports no other SDK line, and nothing above it.' },
            { target: './adapters/http', from: ['./adapters/inspector', './adapters/cli'], message: 'adapters/http is below the inspector and the CLI.' },
            { target: './adapters/inspector', from: './adapters/cli', message: 'the inspector never imports the CLI.' },
            // Library code logs through the `logger` it is given, silent without one: never to the process's stderr.
            { target: ['./runtime', './adapters/!(cli)/**', './index.ts'], from: './adapters/log.ts', message: "adapters/log.ts writes to the process's stderr (the CLI's log): library code logs through its `logger` option." },
          ],
        },
      ],
    },
  },
  {
    // SDK-free: the shared adapter library, the dialect codecs, and the package root.
    files: ['adapters/wire/**/*.ts', 'adapters/dialects/**/*.ts', 'index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['@modelcontextprotocol/*'], message: 'adapters/wire, adapters/dialects and the package root never import an MCP SDK.' }] }] },
  },
  {
    files: ['adapters/mcp-server/**/*.ts', 'adapters/mcp-client/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['@modelcontextprotocol/server', '@modelcontextprotocol/server/*', '@modelcontextprotocol/client', '@modelcontextprotocol/client/*'], message: 'the SDK v1 adapters never import SDK v2.' }] }] },
  },
  {
    files: ['adapters/mcp-server-v2/**/*.ts', 'adapters/mcp-client-v2/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'], message: 'the SDK v2 adapters never import SDK v1.' }] }] },
  },
  {
    // Plain Node ESM scripts (scripts/conformance.mjs): outside the TypeScript project, so linted untyped.
    files: ['scripts/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
