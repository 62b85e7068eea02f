/**
 * The package as a user gets it: `npm pack`, then the tarball installed into fresh projects with
 * `strict` TypeScript (and `skipLibCheck` off, so that every type the package ships is checked;
 * the default libraries, DOM included, as a fresh `tsc --init` project has them),
 * one with only SDK v1 and one with only SDK v2. Each compiles a program of its own and every
 * ```ts block of the README and docs/ (extracted here, not copied: a block importing SDK v2
 * compiles in the v2 project, a block using an agent framework in the frameworks' project,
 * any other in the v1 one); the v1 program runs. Installs come from the npm cache `npm ci` filled
 * (`--prefer-offline`), with the versions the repository pins.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;
const version = (name: string): string => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** One ```ts block of a markdown file. */
interface DocBlock {
  readonly file: string;
  readonly index: number;
  readonly code: string;
}

function docBlocks(): DocBlock[] {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  return files.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m, index) => ({ file, index, code: m[1]! })));
}

const usesV2 = (code: string): boolean => /from '@modelcontextprotocol\/(server|client)(\/[^']*)?'/.test(code);

/**
 * Blocks that use an agent framework (an optional peer) compile in one project of the frameworks,
 * with SDK v1: the frameworks need a newer Node.js than the package does (an install warns on the
 * Node.js the package supports, so the SDK-only projects keep the engine check). One install and
 * one program for all of them (a block sees only what it imports; four installs and four programs,
 * each checking the package's declarations again, took 84 s of a CI worker). Mastra's own
 * declaration files do not compile with `skipLibCheck` off (hundreds of errors inside @mastra/core
 * and @mastra/schema-compat, none in ours), as any Mastra project finds: its blocks are a second
 * program of that project, with `skipLibCheck` on.
 */
const FRAMEWORKS = [
  { name: 'openai-agents', packages: ['@openai/agents'], skipLibCheck: false },
  { name: 'mastra', packages: ['@mastra/core'], skipLibCheck: true },
  // The AI SDK's declarations import 'json-schema' types, which a strict project installs itself.
  { name: 'ai-sdk', packages: ['ai', '@types/json-schema'], skipLibCheck: false },
  { name: 'langchain', packages: ['@langchain/core', '@langchain/langgraph'], skipLibCheck: false },
] as const;
const imports = (code: string, pkg: string): boolean => new RegExp(`from '${pkg}(/[^']*)?'`).test(code);
const frameworkOf = (code: string) => FRAMEWORKS.find((f) => f.packages.some((p) => imports(code, p)));

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, outDir: 'dist', rootDir: 'src', types: ['node'] },
  include: ['src'],
};

let work: string;
let tarball: string;

/**
 * A fresh project with `dependencies`, the tarball installed, and `sources` (name → code) under
 * src/, compiled by tsconfig.json; `skipLibChecked` sources go under lib-skipped/, a second program
 * (tsconfig.lib-skipped.json, `skipLibCheck` on, no emit).
 */
async function project(name: string, dependencies: Record<string, string>, sources: Record<string, string>, skipLibChecked: Record<string, string> = {}): Promise<{ dir: string; installLog: string }> {
  const dir = join(work, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'lib-skipped'), { recursive: true });
  const pkg = { name, private: true, type: 'module', dependencies: { 'mcp-task-actors': `file:${tarball}`, ...dependencies }, devDependencies: { typescript: version('typescript'), '@types/node': version('@types/node') } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  const skipped = { compilerOptions: { ...TSCONFIG.compilerOptions, skipLibCheck: true, noEmit: true, rootDir: 'lib-skipped' }, include: ['lib-skipped'] };
  writeFileSync(join(dir, 'tsconfig.lib-skipped.json'), JSON.stringify(skipped, null, 2));
  for (const [file, code] of Object.entries(sources)) writeFileSync(join(dir, 'src', file), code);
  for (const [file, code] of Object.entries(skipLibChecked)) writeFileSync(join(dir, 'lib-skipped', file), code);
  const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  return { dir, installLog: installed.stdout + installed.stderr };
}

/** Runs one program of the project (tsconfig.json unless named); resolves with its diagnostics ('' when it compiled). */
async function compile(dir: string, tsconfig = 'tsconfig.json'): Promise<string> {
  try {
    await run(join(dir, 'node_modules/.bin/tsc'), ['-p', join(dir, tsconfig)], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

const blocks = docBlocks();
const usedFrameworks = FRAMEWORKS.filter((f) => blocks.some((b) => frameworkOf(b.code) === f));
const sourcesOf = (wanted: (b: DocBlock) => boolean): Record<string, string> =>
  Object.fromEntries(blocks.filter(wanted).map((b) => [`doc-${b.file.replace(/[/.]/g, '_')}-${b.index}.ts`, b.code]));

let v1: { dir: string; installLog: string };
let v2: { dir: string; installLog: string };
let agents: { dir: string; installLog: string };
const inV1 = (b: DocBlock): boolean => !usesV2(b.code) && frameworkOf(b.code) === undefined;
const inV2 = (b: DocBlock): boolean => usesV2(b.code) && frameworkOf(b.code) === undefined;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mcp-task-actors-consumer-'));
  // `dist` is what `npm test` just built; packing must not build again (no scripts).
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  tarball = join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  copyFileSync(join(FIXTURES, 'app-v1.ts'), join(work, 'app-v1.ts'));
  const frameworkDeps = Object.fromEntries(usedFrameworks.flatMap((f) => f.packages.map((p) => [p, version(p)])));
  const inFramework = (skipLibCheck: boolean) => (b: DocBlock): boolean => frameworkOf(b.code)?.skipLibCheck === skipLibCheck;
  [v1, v2, agents] = await Promise.all([
    project(
      'consumer-v1',
      { '@modelcontextprotocol/sdk': version('@modelcontextprotocol/sdk'), zod: version('zod') },
      { 'app.ts': readFileSync(join(FIXTURES, 'app-v1.ts'), 'utf8'), ...sourcesOf(inV1) },
    ),
    project(
      'consumer-v2',
      {
        '@modelcontextprotocol/server': version('@modelcontextprotocol/server'),
        '@modelcontextprotocol/client': version('@modelcontextprotocol/client'),
        zod: version('zod'),
      },
      { 'app.ts': readFileSync(join(FIXTURES, 'app-v2.ts'), 'utf8'), ...sourcesOf(inV2) },
    ),
    project(
      'consumer-agents',
      { '@modelcontextprotocol/sdk': version('@modelcontextprotocol/sdk'), zod: version('zod'), ...frameworkDeps },
      sourcesOf(inFramework(false)),
      sourcesOf(inFramework(true)),
    ),
  ]);
}, 300_000);

// Removing three installed projects takes a while on a loaded machine.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('the packed package in a fresh strict project', () => {
  it('has docs to check: the README and docs/ hold ts blocks for both SDK lines', () => {
    expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(2);
    expect(blocks.some((b) => usesV2(b.code))).toBe(true);
  });

  it('installs without an engine warning', () => {
    expect(v1.installLog).not.toMatch(/EBADENGINE/);
    expect(v2.installLog).not.toMatch(/EBADENGINE/);
  });

  it('compiles with only SDK v1 installed: the program and every README/docs block', async () => {
    expect(await compile(v1.dir)).toBe('');
  }, 120_000);

  it('compiles with only SDK v2 installed: the program and every README/docs block that uses SDK v2', async () => {
    expect(await compile(v2.dir)).toBe('');
  }, 120_000);

  it('compiles every README/docs block that uses an agent framework, in the frameworks\' project', async () => {
    expect(usedFrameworks.map((f) => f.name)).toEqual(expect.arrayContaining(['openai-agents', 'mastra']));
    expect({ checked: await compile(agents.dir), libSkipped: await compile(agents.dir, 'tsconfig.lib-skipped.json') }).toEqual({ checked: '', libSkipped: '' });
  }, 240_000);

  it('runs the SDK v1 program: a task tool answers as a task and plainly, the user\'s own tool stays, over mcp-task-actors/http', async () => {
    const { stdout } = await run(process.execPath, [join(v1.dir, 'dist/app.js')], { cwd: v1.dir, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ tools: ['count_words', 'plain_existing'], plainExisting: 'hello Ada', plainCall: '3 words', status: 'completed', taskResult: '2 words' });
  }, 90_000);
});
