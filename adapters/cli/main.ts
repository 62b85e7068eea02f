#!/usr/bin/env node
/**
 * The `mcp-tasks` command. Each subcommand is loaded only when it runs: the SDKs are optional peer
 * dependencies, and a command whose SDK is missing says which package to install (exit code 2)
 * while the others, and every help text, work without it.
 *
 * @module
 */
import { loadForCommand, SDK_V1 } from './sdk-peers.js';
import { safeText } from './terminal-safe.js';

const HELP = `Usage: mcp-tasks <command> [options]

Commands:
  serve      serve the demo MCP server whose requests may run as tasks (see: mcp-tasks serve --help)
  call       call a tool as a task and follow it to its result (see: mcp-tasks call --help)
  tasks      list, read, fetch the result of or cancel tasks made earlier (see: mcp-tasks tasks --help)
  status     show the nodes, leases and task counts of a server or NATS cluster (see: mcp-tasks status --help)
  diagram    print a machine's state diagram as Mermaid or SVG (see: mcp-tasks diagram --help)
  help       show this help

Options:
  -h, --help show help
`;

/** The help text of a subcommand, or of `mcp-tasks` itself. None of them loads an SDK. */
async function helpOf(command: string | undefined): Promise<string> {
  switch (command) {
    case 'serve':
      return (await import('./serve.js')).SERVE_HELP;
    case 'call':
      return (await import('./call-help.js')).CALL_HELP;
    case 'tasks':
      return (await import('./tasks-help.js')).TASKS_HELP;
    case 'status':
      return (await import('./status.js')).STATUS_HELP;
    case 'diagram':
      return (await import('./diagram.js')).DIAGRAM_HELP;
    default:
      return HELP;
  }
}

async function main(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      // serve loads the SDK it serves with itself (--sdk v1|v2).
      return (await import('./serve.js')).serve(rest);
    case 'call': {
      if (rest.includes('--help') || rest.includes('-h')) return void process.stdout.write(await helpOf('call'));
      const { call } = await loadForCommand(SDK_V1, 'mcp-tasks call', () => import('./call.js'));
      process.exitCode = await call(rest);
      return;
    }
    case 'tasks': {
      if (rest.includes('--help') || rest.includes('-h')) return void process.stdout.write(await helpOf('tasks'));
      const { tasks } = await loadForCommand(SDK_V1, 'mcp-tasks tasks', () => import('./tasks.js'));
      process.exitCode = await tasks(rest);
      return;
    }
    case 'status':
      process.exitCode = await (await import('./status.js')).status(rest);
      return;
    case 'diagram':
      process.exitCode = (await import('./diagram.js')).diagram(rest);
      return;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(await helpOf(rest[0]));
      return;
    default:
      throw new Error(`Unknown command '${command}'. Run 'mcp-tasks --help'.`);
  }
}

// A reader that went away (`mcp-tasks call … | head -1`) ends the command quietly, as a closed
// pipe ends any Unix tool (128 + SIGPIPE), instead of an unhandled EPIPE stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(141);
  throw error;
});

main(process.argv.slice(2)).catch((error: unknown) => {
  // One human sentence (the logs of a running node are JSON lines; this is not one of them).
  // Through the sanitiser: a message may quote what a server sent (escape sequences shown, not run).
  process.stderr.write(`mcp-tasks: ${safeText(error instanceof Error ? error.message : String(error))}\n`);
  // Exit now: a half-started node (a NATS connection, timers) would otherwise keep running unseen.
  process.exit(2);
});
