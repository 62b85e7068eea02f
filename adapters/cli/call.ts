/**
 * `mcp-tasks call`: a requester on the command line. Calls a tool (as a task when the server can
 * run it as one, in the dialect it negotiates), follows it with live status on stderr, answers the
 * server's questions on the terminal (or from `--answer`), answers sampling with a canned model,
 * and prints the result on stdout. `--detach` prints the task id and leaves it running;
 * `mcp-tasks tasks result ID` fetches it later. Requests the server sends task-augmented run as
 * tasks that `call` hosts (see `client-tasks.ts`).
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TaskCancelledError, TaskClientError, TaskClientErrorCode } from '../wire/task-client.errors.js';
import type { TaskCall } from '../wire/task-call.types.js';
import { hostClientTasks } from './client-tasks.js';
import { LineReader } from './terminal-answers.js';
import { CALL_HELP } from './call-help.js';
import { CallOutput, outputMode } from './call-output.js';
import { connectRequester, type RequesterConnection } from './requester-connection.js';
import { connectionSettings, CONNECTION_FLAG_SPECS, UsageError } from './requester-flags.js';
import { failureSentence, httpErrorOf, httpErrorSentence, isConnectionLost } from './request-failure.js';
import { safeLine } from './terminal-safe.js';
import { terminalInputHandler, InputMissing } from './terminal-input.js';

/**
 * The exit codes of `call` and `tasks result`: 0 completed, 1 failed (or cancelled by someone
 * else), 2 bad usage, 3 the task needs input and none can be given (no terminal, no `--answer`),
 * 4 the server refused the call or could not be reached, 130 cancelled with Ctrl-C.
 */
export const EXIT = { completed: 0, failed: 1, usage: 2, inputNeeded: 3, transport: 4, interrupted: 130 } as const;

function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${what} is not valid JSON: ${text}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

function msFlag(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const ms = Number(raw);
  if (!(ms >= 0)) throw new UsageError(`${flag} expects a non-negative number of ms, got '${raw}'`);
  return ms;
}

/**
 * Runs `call` with the given arguments; resolves with the process exit code.
 *
 * @param argv - arguments after `call`
 * @throws UsageError for unknown or malformed options
 * @example
 * ```ts
 * process.exitCode = await call(['http://127.0.0.1:3000/mcp', 'sleep', '{"ms":500}']);
 * ```
 */
export async function call(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      ...CONNECTION_FLAG_SPECS,
      'keep-alive': { type: 'string' },
      ttl: { type: 'string' },
      answer: { type: 'string' },
      'sample-reply': { type: 'string' },
      detach: { type: 'boolean' },
      json: { type: 'boolean' },
      quiet: { type: 'boolean', short: 'q' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(CALL_HELP);
    return EXIT.completed;
  }
  const url = values.stdio === undefined && values.http === undefined ? positionals.shift() : undefined;
  const [tool, rawArgs] = positionals;
  if (tool === undefined) throw new UsageError("call needs a server (URL, --http URL or --stdio \"COMMAND\") and a TOOL. Run 'mcp-tasks call --help'.");
  const settings = connectionSettings(values, url);
  if (values.detach && settings.target.kind === 'stdio') throw new UsageError('--detach needs --http: a stdio server ends with this command, and its tasks with it');
  const args = rawArgs === undefined ? {} : parseJsonObject(rawArgs, 'JSON_ARGS');
  const answer = values.answer === undefined ? undefined : parseJsonObject(values.answer, '--answer');
  const keepAlive = msFlag(values['keep-alive'], '--keep-alive');
  const ttl = msFlag(values.ttl, '--ttl');
  const out = new CallOutput(outputMode(values, process.stderr), process, 'mcp-tasks call');

  const lines = new LineReader(process.stdin, { question: () => out.question() });
  const inputMissing = new InputMissing(!values.detach && answer === undefined && process.stdin.isTTY !== true);
  const client = new Client({ name: 'mcp-tasks-call', version: '0.1.0' });
  const sampleReply = values['sample-reply'] ?? '(canned reply)';
  const hosting = hostClientTasks(client, { lines, answer, sampleReply, pollFrequency: settings.pollFrequency, out: { write: (line: string) => out.aside(line.trimEnd()) }, ...(inputMissing.applies && { onInputMissing: (what: string) => inputMissing.report(what) }) });
  let connection: RequesterConnection;
  try {
    connection = await connectRequester(client, settings, { onInputRequest: terminalInputHandler({ lines, answer, sampleReply, inputMissing }) });
  } catch (error) {
    out.error(failureSentence(settings.where, error, true), EXIT.transport);
    out.close();
    await hosting.dispose();
    process.stdin.destroy();
    return EXIT.transport;
  }
  try {
    const running = connection.tasks.callTool({ name: tool, arguments: args }, { ...(keepAlive !== undefined && { keepAlive }), ...(ttl !== undefined && { ttl }) });
    return await follow(running, connection, out, { detach: values.detach === true, inputMissing, tool });
  } finally {
    out.close();
    await connection.close();
    await hosting.dispose();
    process.stdin.destroy();
  }
}

/** What {@link follow} needs beyond the call. */
interface FollowOptions {
  readonly detach: boolean;
  readonly inputMissing: InputMissing;
  /** The tool's name, for the sentence of a plain call; absent when following a task by id. */
  readonly tool?: string;
}

/**
 * Follows a call (or a task picked up by id) to its end: prints as it goes, handles Ctrl-C, and
 * resolves with the exit code. Shared by `call` and `tasks result`.
 *
 * @example
 * ```ts
 * return follow(connection.tasks.task(id), connection, out, { detach: false, inputMissing });
 * ```
 */
export async function follow(running: TaskCall, connection: RequesterConnection, out: CallOutput, options: FollowOptions): Promise<number> {
  const { where } = connection.settings;
  const fetchLater = (taskId: string): string => {
    const target = connection.settings.target.kind === 'http' ? `--http ${connection.settings.where}` : '';
    const session = sessionNeeded(connection, running) ? ` --session-id ${connection.sessionId}` : '';
    const headers = Object.keys(connection.settings.headers).length > 0 ? ' --header …' : '';
    return `mcp-tasks tasks result ${taskId} ${target}${session}${headers}`;
  };
  // Ctrl-C cancels the task on the server, after a 2 s grace in which a second Ctrl-C leaves it
  // running instead (and says how to fetch it later).
  let interrupted = 0;
  let cancelling: NodeJS.Timeout | undefined;
  const onInterrupt = (): void => {
    const taskId = running.taskId;
    if (taskId === undefined) {
      out.error('interrupted before the server made a task', EXIT.interrupted);
      process.exit(EXIT.interrupted);
    }
    if (interrupted !== 0) {
      clearTimeout(cancelling);
      out.error(`left task ${taskId} running on ${where}; fetch it later with: ${fetchLater(taskId)}`, EXIT.interrupted);
      process.exit(EXIT.interrupted);
    }
    interrupted = Date.now();
    out.note(`cancelling task ${taskId} on ${where} in 2 s (Ctrl-C again to leave it running)`);
    cancelling = setTimeout(() => void running.cancel('cancelled from the command line (Ctrl-C)').catch(() => undefined), 2_000);
  };
  process.on('SIGINT', onInterrupt);
  try {
    const start = await running.started;
    if (start.kind === 'task') {
      out.started(start.taskId, sessionNeeded(connection, running) ? connection.sessionId : undefined);
      if (options.detach) {
        if (outputModeIsHuman(out)) process.stdout.write(`${safeLine(start.taskId)}\n`);
        out.note(`task ${start.taskId} runs on; fetch it later with: ${fetchLater(start.taskId)}`);
        return EXIT.completed;
      }
    }
    const printing = (async () => {
      for await (const update of running.updates()) out.update(update);
    })();
    const ended = await Promise.race([running.result().then((result) => ({ result })), options.inputMissing.reported.then((what) => ({ what }))]);
    if ('what' in ended) {
      const id = running.taskId;
      out.error(`the task asks for input (${ended.what}) and none can be given here: run on a terminal or pass --answer${id === undefined ? '' : `; it waits, fetch it later with: ${fetchLater(id)}`}`, EXIT.inputNeeded);
      return EXIT.inputNeeded;
    }
    await printing;
    if (start.kind === 'direct' && options.tool !== undefined) out.note(`no task: the server answered ${options.tool} directly`);
    out.result(ended.result);
    if (ended.result.isError === true) {
      out.note(running.taskId === undefined ? 'the tool reported an error' : `task ${running.taskId} ended ${running.task?.status ?? 'failed'}`);
      return EXIT.failed;
    }
    return EXIT.completed;
  } catch (error) {
    if (error instanceof TaskCancelledError) {
      out.error(`task ${running.taskId ?? ''} was cancelled${interrupted !== 0 ? '' : ' (not by this command)'}`.replace('task  ', 'the call '), interrupted !== 0 ? EXIT.interrupted : EXIT.failed);
      return interrupted !== 0 ? EXIT.interrupted : EXIT.failed;
    }
    if (error instanceof TaskClientError && error.code === TaskClientErrorCode.retentionUnsupported) {
      out.error(error.message, EXIT.usage);
      return EXIT.usage;
    }
    // An HTTP error (401, 403, 5xx) names its status and the server's words; a connection lost
    // while a task runs says how to fetch it later; else the server refused the call (an unknown
    // tool, bad arguments).
    const http = httpErrorOf(error);
    const taskId = running.taskId;
    if (http !== null) out.error(httpErrorSentence(where, http), EXIT.transport);
    else if (taskId !== undefined && isConnectionLost(error)) {
      out.error(`lost the connection to ${where} while following task ${taskId}; it may still run: fetch it later with: ${fetchLater(taskId)}`, EXIT.transport);
    } else out.error(failureSentence(where, error, false), EXIT.transport);
    return EXIT.transport;
  } finally {
    clearTimeout(cancelling);
    process.off('SIGINT', onInterrupt);
  }
}

/** Whether this output prints the bare task id of `--detach` (the JSON mode has its own line). */
function outputModeIsHuman(out: CallOutput): boolean {
  return out.mode !== 'json';
}

/**
 * Whether reaching the task later needs this session: over HTTP, an anonymous requester's task
 * in a session dialect is bound to the session that made it (an authenticated one's 2025-11-25
 * task to its principal; a 2026-07-28 task to its id alone).
 */
function sessionNeeded(connection: RequesterConnection, running: TaskCall): boolean {
  if (connection.settings.target.kind !== 'http' || connection.sessionId === undefined) return false;
  if (running.dialect === '2026-07-28') return false;
  return !('authorization' in connection.settings.headers) || running.dialect === 'sep-1686';
}
