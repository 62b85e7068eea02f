// The SDKs are optional peer dependencies: each entry point reaches at run time only the SDK
// package it is for (read from the built files' import graph), and an adapter whose SDK is
// missing fails on import with an error naming the package and how to install it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { default: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** The bare packages a built file reaches at run time, following relative imports (static and dynamic). */
function packagesReached(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    // Comments (TSDoc examples) name imports that are not made.
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(join(ROOT, entry));
  return packages;
}

const SDKS = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/client'];
const sdksOf = (entry: string): string[] => [...packagesReached(entry)].filter((p) => SDKS.includes(p)).sort();

describe('packaging', () => {
  it('should declare every SDK as an optional peer dependency, never a dependency', () => {
    for (const sdk of SDKS) {
      expect(pkg.dependencies[sdk], sdk).toBeUndefined();
      expect(pkg.peerDependencies[sdk], sdk).toBeDefined();
      expect(pkg.peerDependenciesMeta[sdk]?.optional, sdk).toBe(true);
    }
  });

  it('should build the mcp-tasks command executable (npx runs it by its file mode)', () => {
    const bin = join(ROOT, 'dist/adapters/cli/main.js');
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    expect(statSync(bin).mode & 0o111, 'run npm run build first').not.toBe(0);
  });

  it('should reach from each entry point only the SDK it is for', () => {
    expect(existsSync(join(ROOT, 'dist/runtime/index.js')), 'run npm run build first').toBe(true);
    const expected: Record<string, string[]> = {
      '.': [],
      './nats': [],
      './machines': [],
      './adapters/inspector': [],
      './adapters/mcp-server': ['@modelcontextprotocol/sdk'],
      './adapters/mcp-client': ['@modelcontextprotocol/sdk'],
      './adapters/mcp-server-v2': ['@modelcontextprotocol/server'],
      // Works on the v2 Client it is given; loads that Client's package (never at import, only when
      // a task-augmented request arrives) to check the request with the SDK's own schemas.
      './adapters/mcp-client-v2': ['@modelcontextprotocol/client'],
      // Each SDK line's handler is a dynamic import, made only when that line is asked for (`sdk`).
      './http': ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server'],
      // The agent framework adapters work on the task client they are given: no MCP SDK of their own.
      './ai-sdk': [],
      './langchain': [],
      './openai-agents': [],
      './mastra': [],
    };
    expect(Object.keys(pkg.exports).sort()).toEqual(Object.keys(expected).sort());
    for (const [entry, sdks] of Object.entries(expected)) expect({ entry, sdks: sdksOf(pkg.exports[entry]!.default) }).toEqual({ entry, sdks });
  });

  it('should import mcp-task-actors/http with no SDK installed, and name the missing one when a line is asked for', () => {
    const dir = mkdtempSync(join(tmpdir(), 'peer-'));
    const hidden = JSON.stringify(SDKS);
    writeFileSync(
      join(dir, 'hook.mjs'),
      `export async function resolve(s, c, next) { if (${hidden}.some((p) => s === p || s.startsWith(p + '/'))) { const e = new Error("Cannot find package '" + s + "' imported from " + c.parentURL); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return next(s, c); }\n`,
    );
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`);
    const script = `const http = await import(${JSON.stringify(pathToFileURL(join(ROOT, pkg.exports['./http']!.default)).href)});
for (const sdk of ['v1', 'v2']) {
  try { await http.startHttpEndpoint({ sdk, port: 0, createServer: () => { throw new Error('never'); } }); console.log(sdk, 'started'); }
  catch (e) { console.log(sdk, e.name, e.message); }
}`;
    const run = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, '--input-type=module', '-e', script], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('v1 MissingPeerDependencyError mcp-task-actors/http needs @modelcontextprotocol/sdk');
    expect(run.stdout).toContain('v2 MissingPeerDependencyError mcp-task-actors/http needs @modelcontextprotocol/server');
  });

  it.each([
    ['./adapters/mcp-server-v2', '@modelcontextprotocol/server'],
    ['./adapters/mcp-server', '@modelcontextprotocol/sdk'],
    ['./adapters/mcp-client', '@modelcontextprotocol/sdk'],
    ['./openai-agents', '@openai/agents'],
    ['./mastra', '@mastra/core'],
  ])('should fail to import %s without %s, naming the package and how to install it', (entry, peer) => {
    // A resolve hook that makes the peer (and only it) not installed.
    const dir = mkdtempSync(join(tmpdir(), 'peer-'));
    writeFileSync(
      join(dir, 'hook.mjs'),
      `export async function resolve(s, c, next) { if (s === '${peer}' || s.startsWith('${peer}/')) { const e = new Error("Cannot find package '" + s + "' imported from " + c.parentURL); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return next(s, c); }\n`,
    );
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hook.mjs')).href)});\n`);
    const run = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, '--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(join(ROOT, pkg.exports[entry]!.default)).href)})`], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`MissingPeerDependencyError: mcp-task-actors/${entry.slice(2)} needs ${peer}`);
    expect(run.stderr).toContain(`npm install ${peer}@`);
  });
});
