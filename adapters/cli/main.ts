#!/usr/bin/env node
/**
 * The `mcp-tasks` command.
 *
 * @module
 */
import { call, CALL_HELP } from './call.js';
import { diagram, DIAGRAM_HELP } from './diagram.js';
import { serve, SERVE_HELP } from './serve.js';
import { status, STATUS_HELP } from './status.js';
import { log } from './log.js';

const HELP = `Usage: mcp-tasks <command> [options]

Commands:
  serve      serve the demo MCP server whose requests may run as tasks (see: mcp-tasks serve --help)
  call       call a tool as a task and follow it to its result (see: mcp-tasks call --help)
  status     show a NATS cluster's nodes, leases and task counts (see: mcp-tasks status --help)
  diagram    print a machine's state diagram as Mermaid or SVG (see: mcp-tasks diagram --help)
  help       show this help

Options:
  -h, --help show help
`;

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'call':
      process.exitCode = await call(rest);
      return;
    case 'status':
      process.exitCode = await status(rest);
      return;
    case 'diagram':
      process.exitCode = diagram(rest);
      return;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      if (rest[0] === 'serve') process.stdout.write(SERVE_HELP);
      else if (rest[0] === 'call') process.stdout.write(CALL_HELP);
      else if (rest[0] === 'status') process.stdout.write(STATUS_HELP);
      else if (rest[0] === 'diagram') process.stdout.write(DIAGRAM_HELP);
      else process.stdout.write(HELP);
      return;
    default:
      throw new Error(`Unknown command '${command}'. Run 'mcp-tasks --help'.`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  log('error', error instanceof Error ? error.message : String(error));
  // Exit now: a half-started node (a NATS connection, timers) would otherwise keep running unseen.
  process.exit(2);
});
