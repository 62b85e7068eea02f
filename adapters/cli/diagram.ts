/**
 * `mcp-tasks diagram`: prints a machine's state diagram, drawn from the machine definition.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import type { AnyStateMachine } from 'xstate';
import { requesterMachine, taskMachine } from '../../machines/index.js';
import { machineGraph, toMermaid, toSvg } from '../inspector/diagram/index.js';

/**
 * Help text of `mcp-tasks diagram`.
 *
 * @example
 * ```ts
 * process.stdout.write(DIAGRAM_HELP);
 * ```
 */
export const DIAGRAM_HELP = `Usage: mcp-tasks diagram [--format mermaid|svg] [--machine task|requester]

Prints a state diagram of a machine, drawn from its definition: every state and every transition.

  --format mermaid|svg       Mermaid stateDiagram-v2 text (default) or a standalone SVG document
  --machine task|requester   the task lifecycle (default) or the requester's side of a task call
  -h, --help                 show this help
`;

const MACHINES: Readonly<Record<string, AnyStateMachine>> = { task: taskMachine, requester: requesterMachine };
const FORMATS = ['mermaid', 'svg'] as const;

/**
 * Runs `diagram`, writing the diagram to stdout; resolves with the exit code.
 *
 * @param argv - arguments after `diagram`
 * @throws Error for an unknown format or machine (the CLI prints it and exits with 2)
 * @example
 * ```ts
 * process.exitCode = diagram(['--format', 'svg', '--machine', 'requester']);
 * ```
 */
export function diagram(argv: readonly string[]): number {
  const { values } = parseArgs({
    args: [...argv],
    options: { format: { type: 'string' }, machine: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(DIAGRAM_HELP);
    return 0;
  }
  const format = values.format ?? 'mermaid';
  const machine = MACHINES[values.machine ?? 'task'];
  if (!FORMATS.includes(format as (typeof FORMATS)[number])) throw new Error(`Unknown format '${format}': use mermaid or svg.`);
  if (!machine) throw new Error(`Unknown machine '${values.machine}': use ${Object.keys(MACHINES).join(' or ')}.`);
  const graph = machineGraph(machine);
  process.stdout.write(format === 'svg' ? toSvg(graph) : toMermaid(graph));
  return 0;
}
