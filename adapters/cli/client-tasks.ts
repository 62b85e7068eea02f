/**
 * How `mcp-tasks call` hosts client-side tasks: a server may send it `elicitation/create` or
 * `sampling/createMessage` task-augmented (SEP-1686 `_meta` or 2025-11-25 `params.task`); the
 * answers are the ones `call` gives anyway (`--answer` or the terminal, `--sample-reply`), but they
 * run as tasks in a process-local runtime, and each status change is printed on stderr.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { attachTaskHost } from '../mcp-client/index.js';
import { renderInOwnDialect } from '../dialects/index.js';
import { createTaskRuntime, type TaskView } from '../../runtime/index.js';
import { answerElicitation, cannedSample, type LineReader } from './terminal-answers.js';
import { elicitOrReport, InputMissing } from './terminal-input.js';
import { safeLine } from './terminal-safe.js';

/** Options of {@link hostClientTasks}: the answers `call` gives, and where status lines go. */
export interface ClientTaskHostingOptions {
  /** Lines typed (or piped) on stdin, for elicitation without `answer`. */
  readonly lines: LineReader;
  /** Answers every elicitation with this object instead of asking on the terminal. */
  readonly answer: Record<string, unknown> | undefined;
  /** The canned model's reply to every sampling request. */
  readonly sampleReply: string;
  /** The polling interval the hosted tasks suggest to the server, ms. */
  readonly pollFrequency: number;
  /**
   * Called when a question cannot be answered (no terminal, no `answer`, stdin at its end); the
   * question is then left unanswered.
   */
  readonly onInputMissing?: (what: string) => void;
  /** Where status lines are written (each one safe line: ids and messages come from the server). @default process.stderr */
  readonly out?: { write(line: string): unknown };
}

/** The hosting of one `call`: stop it once the call is over. */
export interface ClientTaskHosting {
  /** Stops printing and disposes of the runtime (its tasks end with the process anyway). */
  dispose(): Promise<void>;
}

/** One status line of a hosted task, with status and message as the server sees them in its dialect. */
function statusLine(task: TaskView, now: number): string {
  const shown = renderInOwnDialect(task, { withMeta: false }, now);
  const message = typeof shown['statusMessage'] === 'string' ? ` (${shown['statusMessage']})` : '';
  return `client task ${task.taskId} (${task.method}): status: ${String(shown['status'])}${message}`;
}

/**
 * Makes `client` host the sampling and elicitation tasks servers send it, declaring the client
 * capabilities that say so (`elicitation`, `sampling`, `tasks.{list, cancel, requests}`). Requests
 * that are not task-augmented get the same answers directly. Call before `client.connect()`.
 *
 * @param client - the SDK client `call` is about to connect
 * @param options - the answers and the polling interval to suggest
 * @returns the hosting, to dispose of when the call is over
 * @example
 * ```ts
 * const hosting = hostClientTasks(client, { lines: new LineReader(), answer: undefined, sampleReply: 'Short.', pollFrequency: 500 });
 * await client.connect(transport);
 * // … the call …
 * await hosting.dispose();
 * ```
 */
export function hostClientTasks(client: Client, options: ClientTaskHostingOptions): ClientTaskHosting {
  const out = options.out ?? process.stderr;
  const missing = new InputMissing(options.onInputMissing !== undefined);
  void missing.reported.then((what) => options.onInputMissing?.(what));
  const runtime = createTaskRuntime({ pollFrequency: options.pollFrequency });
  const last = new Map<string, string>();
  const unsubscribe = runtime.subscribe(({ task }) => {
    const line = statusLine(task, runtime.options.now());
    // A change the server cannot see (submitted → working in 2025-11-25) prints nothing new.
    if (last.get(task.taskId) === line) return;
    last.set(task.taskId, line);
    out.write(`${safeLine(line)}\n`);
  });
  attachTaskHost(client, {
    runtime,
    elicitation: async (params, ctx) => {
      if (options.answer) return answerElicitation(params, options.lines, options.answer);
      // Tells a polling server why the task takes as long as it does.
      ctx.setStatusMessage('waiting for an answer on the terminal');
      const answered = await elicitOrReport(params, options.lines, undefined, missing, ctx.signal);
      ctx.setStatusMessage('answered on the terminal');
      return answered;
    },
    sampling: async () => cannedSample(options.sampleReply),
  });
  return {
    async dispose() {
      unsubscribe();
      await runtime.dispose();
    },
  };
}
