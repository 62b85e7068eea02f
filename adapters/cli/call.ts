/**
 * `mcp-tasks call`: a requester on the command line. Calls a tool as a task, prints each status
 * change as it happens, answers elicitation on the terminal (or from `--answer`), answers sampling
 * with a canned model, and prints the result. Requests the server sends task-augmented run as
 * tasks that `call` hosts (see `client-tasks.ts`).
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '../wire/mcp-shapes.js';
import { TaskCancelledError, TaskFailedError } from '../mcp-client/index.js';
import { TaskClientCore } from '../wire/task-client.js';
import { NO_TIMEOUT } from '../wire/task-client.wire.js';
import { CreatedRouter } from '../mcp-server/created-router.js';
import { hostClientTasks } from './client-tasks.js';
import { mayCallAsTask } from './task-support.js';
import { TaskProgress } from './task-progress.js';
import { LineReader } from './terminal-answers.js';
import { CALL_HELP } from './call-help.js';
import { reasonOf } from './request-failure.js';

/** Splits a command line on spaces, honouring simple single and double quotes. */
function splitCommand(command: string): string[] {
  const parts = command.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  return parts.map((p) => (/^(["']).*\1$/.test(p) ? p.slice(1, -1) : p));
}

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON: ${text}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

function printResult(result: CallToolResult): void {
  for (const item of result.content) {
    process.stdout.write(item.type === 'text' ? `${item.text}\n` : `${JSON.stringify(item)}\n`);
  }
  if (result.structuredContent !== undefined) process.stdout.write(`${JSON.stringify(result.structuredContent)}\n`);
}

/**
 * Runs `call` with the given arguments; resolves with the process exit code.
 *
 * @param argv - arguments after `call`
 * @throws Error for unknown or malformed options
 * @example
 * ```ts
 * process.exitCode = await call(['http://127.0.0.1:3000/mcp', 'sleep', '{"ms":500}']);
 * ```
 */
export async function call(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      stdio: { type: 'string' },
      dialect: { type: 'string' },
      'keep-alive': { type: 'string' },
      answer: { type: 'string' },
      'sample-reply': { type: 'string' },
      poll: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(CALL_HELP);
    return 0;
  }
  const target = values.stdio === undefined ? positionals.shift() : undefined;
  const [tool, rawArgs] = positionals;
  if ((values.stdio === undefined && target === undefined) || tool === undefined) {
    throw new Error("call needs a server (URL or --stdio \"COMMAND\") and a TOOL. Run 'mcp-tasks call --help'.");
  }
  const dialect = values.dialect ?? 'sep-1686';
  if (dialect !== 'sep-1686' && dialect !== '2025-11-25') throw new Error(`--dialect must be sep-1686 or 2025-11-25, got '${dialect}'`);
  const args = rawArgs === undefined ? {} : parseJsonObject(rawArgs, 'JSON_ARGS');
  const answer = values.answer === undefined ? undefined : parseJsonObject(values.answer, '--answer');
  const keepAlive = values['keep-alive'] === undefined ? undefined : Number(values['keep-alive']);
  if (keepAlive !== undefined && !(keepAlive >= 0)) throw new Error('--keep-alive expects a non-negative number of ms');
  const pollFrequency = values.poll === undefined ? 500 : Number(values.poll);

  let transport: Transport;
  if (values.stdio !== undefined) {
    const [command, ...commandArgs] = splitCommand(values.stdio);
    if (!command) throw new Error('--stdio needs a command');
    transport = new StdioClientTransport({ command, args: commandArgs, stderr: 'ignore' });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(target!));
  }

  const client = new Client({ name: 'mcp-tasks-call', version: '0.1.0' });
  const hosting = hostClientTasks(client, {
    lines: new LineReader(),
    answer,
    sampleReply: values['sample-reply'] ?? '(canned reply)',
    pollFrequency,
  });
  const where = values.stdio === undefined ? target! : `the server started by "${values.stdio}"`;
  try {
    await client.connect(transport);
  } catch (error) {
    process.stderr.write(`mcp-tasks call: cannot reach ${where}: ${reasonOf(error)}\n`);
    await hosting.dispose();
    process.stdin.destroy();
    return EXIT.transport;
  }
  try {
    let result: CallToolResult;
    if (await mayCallAsTask(client, tool, dialect)) {
      const outcome = await followTask(client, { name: tool, arguments: args }, dialect, keepAlive, pollFrequency, where);
      if (typeof outcome === 'number') return outcome;
      result = outcome;
    } else {
      process.stdout.write(`no task: the server does not run ${tool} as a task; calling it directly\n`);
      result = await client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema, { timeout: NO_TIMEOUT });
    }
    printResult(result);
    return result.isError === true ? EXIT.failed : EXIT.completed;
  } catch (error) {
    // The server refused the call (an unknown tool, bad arguments) or the connection broke.
    process.stderr.write(`mcp-tasks call: ${where} answered with an error: ${reasonOf(error)}\n`);
    return EXIT.transport;
  } finally {
    await client.close();
    await hosting.dispose();
    process.stdin.destroy();
  }
}

/**
 * Calls the tool as a task and prints its status lines, partial results and subtasks; resolves
 * with its result, or the exit code of a task that ended without one.
 */
async function followTask(
  client: Client,
  params: { name: string; arguments: Record<string, unknown> },
  dialect: 'sep-1686' | '2025-11-25',
  keepAlive: number | undefined,
  pollFrequency: number,
  where: string,
): Promise<CallToolResult | number> {
  const progress = new TaskProgress(client, dialect, (line) => process.stdout.write(`${line}\n`));
  // The SDK v1 TaskClient over a peer whose tasks/get answers also carry the partials and subtasks.
  const tasks = new TaskClientCore(progress.peer, { dialect, pollFrequency }, () => CreatedRouter.for(client));
  const pending = tasks.beginCallTool(params, keepAlive === undefined ? {} : dialect === 'sep-1686' ? { keepAlive } : { ttl: keepAlive });
  const taskId = await pending.taskId;
  // Ctrl-C cancels the task on the server (not just this command); a second one within 2 s
  // leaves it running and says where it is.
  let interrupted = 0;
  const onInterrupt = (): void => {
    const now = Date.now();
    if (interrupted !== 0 && now - interrupted < 2_000) {
      process.stderr.write(`\nmcp-tasks call: left task ${taskId} running on ${where}\n`);
      process.exit(EXIT.interrupted);
    }
    interrupted = now;
    process.stderr.write(`\nmcp-tasks call: cancelling task ${taskId} on ${where} (Ctrl-C again within 2 s to leave it running)\n`);
    pending.cancel('cancelled from the command line (Ctrl-C)');
  };
  process.on('SIGINT', onInterrupt);
  let last = '';
  let told = false;
  try {
    const result = await pending.result({
      onTaskStatus: (task) => {
        // Said once the server has the task: a call it refused never became one.
        if (!told) process.stdout.write(`task ${taskId}\n`);
        told = true;
        const line = `status: ${task.status}${task.statusMessage ? ` (${task.statusMessage})` : ''}`;
        if (line !== last) process.stdout.write(`${line}\n`);
        last = line;
      },
    });
    await progress.flush(taskId);
    return result;
  } catch (error) {
    await progress.flush(taskId);
    // A task that ended failed or cancelled is an answer, not a crash of the command.
    if (error instanceof TaskFailedError || error instanceof TaskCancelledError) {
      process.stdout.write(`${error.message}\n`);
      return interrupted !== 0 && error instanceof TaskCancelledError ? EXIT.interrupted : EXIT.failed;
    }
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/**
 * The exit codes of `call`: 0 completed, 1 failed (or cancelled by the server), 2 bad usage,
 * 4 the server refused the call or could not be reached, 130 cancelled with Ctrl-C.
 */
export const EXIT = { completed: 0, failed: 1, usage: 2, transport: 4, interrupted: 130 } as const;

