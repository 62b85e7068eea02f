/**
 * `mcp-tasks tasks list|get|result|cancel`: the "later" of call-now-fetch-later, against any task
 * server: list the requester's tasks, read one, follow one to its result (answering what it asks),
 * or cancel one, from a new process. Over HTTP an anonymous requester's task is bound to the
 * session that made it: pass `--session-id` (what `call --detach` printed); an authenticated one
 * (`--header 'Authorization: Bearer …'`) reaches its 2025-11-25 tasks from any session.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequesterTask } from '../../machines/index.js';
import { hostClientTasks } from './client-tasks.js';
import { CallOutput, outputMode } from './call-output.js';
import { EXIT, follow } from './call.js';
import { failureSentence, reasonOf } from './request-failure.js';
import { safeJson, safeLine } from './terminal-safe.js';
import { connectRequester, type RequesterConnection } from './requester-connection.js';
import { CONNECTION_FLAG_SPECS, connectionSettings, UsageError } from './requester-flags.js';
import { TASKS_HELP } from './tasks-help.js';
import { LineReader } from './terminal-answers.js';
import { InputMissing, terminalInputHandler } from './terminal-input.js';

const SUBCOMMANDS = ['list', 'get', 'result', 'cancel'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** One task as a human line: what the server sent (id, status, message) cannot break it or reach the terminal raw. */
function taskLine(task: RequesterTask): string {
  return `${safeLine(task.taskId)}  ${safeLine(task.status)}${task.statusMessage ? `  ${safeLine(task.statusMessage)}` : ''}`;
}

/** One task as JSON: what the requester reads of it, whatever the dialect. */
function taskJson(task: RequesterTask): Record<string, unknown> {
  const { inputRequests, ...rest } = task;
  return { ...rest, ...(inputRequests !== undefined && { inputRequests }) };
}

/**
 * Runs `tasks`; resolves with the exit code.
 *
 * @param argv - arguments after `tasks`
 * @throws UsageError for unknown or malformed options
 * @example
 * ```ts
 * process.exitCode = await tasks(['result', taskId, '--http', 'http://127.0.0.1:3000/mcp', '--session-id', sid]);
 * ```
 */
export async function tasks(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      ...CONNECTION_FLAG_SPECS,
      json: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      answer: { type: 'string' },
      'sample-reply': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(TASKS_HELP);
    return EXIT.completed;
  }
  const [sub, id, extra] = positionals;
  if (!SUBCOMMANDS.includes(sub as Subcommand)) throw new UsageError(`tasks needs one of ${SUBCOMMANDS.join(', ')}${sub === undefined ? '' : `, got '${sub}'`}. Run 'mcp-tasks tasks --help'.`);
  if (sub !== 'list' && id === undefined) throw new UsageError(`tasks ${sub} needs a task ID`);
  if (extra !== undefined || (sub === 'list' && id !== undefined)) throw new UsageError(`tasks ${sub} takes ${sub === 'list' ? 'no argument' : 'one task ID'}, got '${extra ?? id}'`);
  const settings = connectionSettings(values);
  let answer: Record<string, unknown> | undefined;
  if (values.answer !== undefined) {
    try {
      answer = JSON.parse(values.answer) as Record<string, unknown>;
    } catch {
      throw new UsageError(`--answer is not valid JSON: ${values.answer}`);
    }
  }
  const out = new CallOutput(outputMode(values, process.stderr), process, `mcp-tasks tasks ${sub}`);
  const lines = new LineReader(process.stdin, { question: () => out.question() });
  const inputMissing = new InputMissing(answer === undefined && process.stdin.isTTY !== true);
  const sampleReply = values['sample-reply'] ?? '(canned reply)';
  const client = new Client({ name: 'mcp-tasks-tasks', version: '0.1.0' });
  const hosting = hostClientTasks(client, { lines, answer, sampleReply, pollFrequency: settings.pollFrequency, out: { write: (line: string) => out.aside(line.trimEnd()) }, ...(inputMissing.applies && { onInputMissing: (what: string) => inputMissing.report(what) }) });
  let connection: RequesterConnection | undefined;
  try {
    try {
      connection = await connectRequester(client, settings, { onInputRequest: terminalInputHandler({ lines, answer, sampleReply, inputMissing }) });
    } catch (error) {
      out.error(failureSentence(settings.where, error, true), EXIT.transport);
      return EXIT.transport;
    }
    return await run(sub as Subcommand, id, connection, out, inputMissing, values.json === true);
  } finally {
    out.close();
    await connection?.close();
    await hosting.dispose();
    process.stdin.destroy();
  }
}

async function run(sub: Subcommand, id: string | undefined, connection: RequesterConnection, out: CallOutput, inputMissing: InputMissing, json: boolean): Promise<number> {
  const { tasks: client, settings } = connection;
  const print = (task: RequesterTask): void => void process.stdout.write(json ? `${safeJson(taskJson(task))}\n` : `${taskLine(task)}\n`);
  if (sub === 'result') return follow(client.task(id!), connection, out, { detach: false, inputMissing });
  try {
    if (sub === 'list') {
      const all = await client.listTasks();
      if (!json && all.length === 0) out.note(`no tasks of this requester on ${settings.where}`);
      for (const task of all) print(task);
      return EXIT.completed;
    }
    if (sub === 'get') {
      print(await client.getTask(id!));
      return EXIT.completed;
    }
    const before = await client.getTask(id!);
    if (before.status === 'completed' || before.status === 'failed' || before.status === 'cancelled') {
      print(before);
      out.error(`task ${id!} had already ended ${before.status}; nothing to cancel`, EXIT.failed);
      return EXIT.failed;
    }
    print(await client.cancelTask(id!));
    return EXIT.completed;
  } catch (error) {
    // An anonymous task is bound to the session that made it: the likeliest reason it is not found.
    const anonymous = settings.target.kind === 'http' && settings.sessionId === undefined && !('authorization' in settings.headers);
    const hint = anonymous && /not found/i.test(reasonOf(error)) ? " (a task of an anonymous requester belongs to the session that made it: pass the --session-id 'call --detach' printed)" : '';
    out.error(`${failureSentence(settings.where, error, false)}${hint}`, EXIT.transport);
    return EXIT.transport;
  }
}
