// @vitest-environment jsdom
// A DOM for this file only: Mermaid's parser needs one, and the SVG is read back with DOMParser.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { requesterMachine, taskMachine } from '../../machines/index.js';
import { definitionOf, parseMermaid, parseSvg } from '../unit/adapters/diagram.reference.js';

// From a string: under jsdom, `URL` is jsdom's, which node:url does not accept.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = 'dist/adapters/cli/main.js';

/** Runs the built `mcp-tasks diagram …` as a user would. */
function runDiagram(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [cli, 'diagram', ...args], { cwd: root, encoding: 'utf8', timeout: 15_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('mcp-tasks diagram', () => {
  it('should print Mermaid text that parses and has every state and transition of the task machine', async () => {
    for (const args of [[], ['--format', 'mermaid']]) {
      const run = runDiagram(args);
      expect(run.code).toBe(0);
      const { states, transitions } = definitionOf(taskMachine);
      const parsed = await parseMermaid(run.stdout, 'task');
      expect(parsed.states.map((s) => s.path).sort()).toEqual(states.map((s) => s.id).sort());
      expect(parsed.edges).toHaveLength(transitions.length);
      // The machine invokes nothing: no handler outcome edge is drawn from any state.
      expect(parsed.edges.filter((e) => /^(done|error): /.test(e.label))).toEqual([]);
      expect(run.stdout).not.toMatch(/(done|error): handler/);
    }
  });

  it('should print an SVG document with every state', () => {
    for (const machine of [taskMachine, requesterMachine]) {
      const run = runDiagram(['--format', 'svg', '--machine', machine.id]);
      expect(run.code).toBe(0);
      expect(run.stdout.startsWith('<svg')).toBe(true);
      const doc = parseSvg(run.stdout);
      const drawn = [...doc.querySelectorAll('g.state')].map((g) => g.getAttribute('data-state'));
      expect(drawn.sort()).toEqual(definitionOf(machine).states.map((s) => s.id).sort());
    }
  });

  it('should refuse an unknown format or machine with a message', () => {
    const format = runDiagram(['--format', 'png']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain("Unknown format 'png'");
    const machine = runDiagram(['--machine', 'nope']);
    expect(machine.code).toBe(2);
    expect(machine.stderr).toContain("Unknown machine 'nope'");
    expect(runDiagram(['--help']).stdout).toContain('Usage: mcp-tasks diagram');
  });
});
