/**
 * Fixture scripts written in TypeScript (type-checked and linted with the tests) but run as child
 * processes by plain `node`, which on Node 20 cannot run TypeScript. Each is transpiled once per
 * test worker into `node_modules/.cache/`, where its bare imports (`@modelcontextprotocol/sdk`,
 * `zod`) resolve to the repository's own packages and where no linter or build looks.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './process.js';

/**
 * Transpiles `test/fixtures/<name>.ts` and returns the path of the runnable `.mjs`.
 *
 * @example
 * ```ts
 * const script = fixtureScript('client-task-server');
 * spawn(process.execPath, [script]);
 * ```
 */
export function fixtureScript(name: string): string {
  const source = readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', `${name}.ts`), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    fileName: `${name}.ts`,
  });
  const dir = path.join(REPO_ROOT, 'node_modules', '.cache', 'mcp-task-actors-fixtures');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.${process.pid}.mjs`);
  writeFileSync(file, outputText);
  return file;
}
