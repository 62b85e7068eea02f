/**
 * `mode: 'background'` of the agent framework adapters: a server tool starts its task and answers
 * at once with the task id and what to do next; four more tools let the model follow
 * (`task_status`), collect (`task_result`), cancel (`task_cancel`) and answer (`task_respond`) its
 * tasks, so an agent fans out several long jobs and keeps talking. A question a task asks waits
 * here, shown by `task_status`, until `task_respond` answers it (or `onInputRequest` does).
 *
 * @module
 */
import type { RequesterInputRequest } from '../../machines/index.js';
import type { TaskCall } from '../wire/task-call.types.js';
import { resultText, type AgentTaskClient, type McpTaskToolsOptions } from './agent-tools.js';

/** The four follow-up tools, as every adapter declares them (JSON Schema arguments). */
export const BACKGROUND_TOOL_SPECS = [
  {
    name: 'task_status',
    description:
      'Shows a background task: its status, status message, and the question it asks when it waits for input (status input_required). With waitMs (at most 30000) it first waits that long for a change.',
    inputSchema: {
      type: 'object',
      properties: { taskId: { type: 'string' }, waitMs: { type: 'number', minimum: 0, maximum: 30_000 } },
      required: ['taskId'],
      additionalProperties: false,
    },
  },
  {
    name: 'task_result',
    description: 'Collects the result of a background task once it has ended; says so when it is still running.',
    inputSchema: { type: 'object', properties: { taskId: { type: 'string' } }, required: ['taskId'], additionalProperties: false },
  },
  {
    name: 'task_cancel',
    description: 'Cancels a background task.',
    inputSchema: { type: 'object', properties: { taskId: { type: 'string' } }, required: ['taskId'], additionalProperties: false },
  },
  {
    name: 'task_respond',
    description:
      'Answers the question a background task asks (see task_status). For a question (elicitation) send {"action":"accept","content":{…the requested fields…}} or {"action":"decline"}; for a model request (sampling) send {"role":"assistant","content":{"type":"text","text":"…"},"model":"…"}.',
    inputSchema: {
      type: 'object',
      properties: { taskId: { type: 'string' }, response: { type: 'object', additionalProperties: true } },
      required: ['taskId', 'response'],
      additionalProperties: false,
    },
  },
] as const;

/** The names of the follow-up tools. */
export type BackgroundToolName = (typeof BACKGROUND_TOOL_SPECS)[number]['name'];

interface Waiting {
  readonly request: RequesterInputRequest;
  readonly answer: (response: Record<string, unknown>) => void;
}

interface Started {
  readonly toolName: string;
  call: TaskCall;
  waiting: Waiting | null;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * One agent's background tasks, started through one client.
 *
 * @example
 * ```ts
 * const background = new BackgroundTasks(tasks, {});
 * const started = await background.start('long_job', { seconds: 30 }); // text for the model
 * const status = await background.run('task_status', { taskId });
 * ```
 */
export class BackgroundTasks {
  readonly #client: AgentTaskClient;
  readonly #options: McpTaskToolsOptions;
  readonly #started = new Map<string, Started>();

  constructor(client: AgentTaskClient, options: McpTaskToolsOptions) {
    this.#client = client;
    this.#options = options;
  }

  /** Starts a server tool's task; answers with its id (or the result, when the server answered at once). */
  async start(toolName: string, args: Record<string, unknown>): Promise<string> {
    const handler = this.#options.onInputRequest;
    // Made before the call: a question may come before the call is known to be a task.
    const entry = { toolName, waiting: null } as Partial<Started> & { toolName: string; waiting: Waiting | null };
    const call = this.#client.callTool(
      { name: toolName, arguments: args },
      {
        onInputRequest: (request, ctx) =>
          handler !== undefined
            ? handler(request, { toolName, taskId: ctx.taskId, signal: ctx.signal })
            : new Promise((resolve) => {
                entry.waiting = { request, answer: resolve };
              }),
      },
    );
    const start = await call.started;
    if (start.kind === 'direct') {
      const result = await call.result();
      return JSON.stringify({ tool: toolName, answeredAtOnce: true, isError: result.isError === true, result: resultText(result) });
    }
    entry.call = call;
    this.#started.set(start.taskId, entry as Started);
    return JSON.stringify({
      taskId: start.taskId,
      tool: toolName,
      status: call.task?.status ?? 'working',
      next: `It runs in the background. Call task_status with {"taskId":"${start.taskId}"} to follow it, task_result to collect its result once it ended, task_cancel to stop it.`,
    });
  }

  /** Resolves once the task's status or message changes or it asks something, or after `ms`. */
  async #changeOf(taskId: string, entry: Started, ms: number): Promise<void> {
    const keyOf = (t: { status: string; statusMessage: string | null } | null): string => `${t?.status}\u0000${t?.statusMessage ?? ''}`;
    const seen = keyOf(await this.#client.getTask(taskId).catch(() => entry.call.task));
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && entry.waiting === null) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(0, deadline - Date.now()))));
      const now = await this.#client.getTask(taskId).catch(() => null);
      if (now === null || keyOf(now) !== seen) return;
    }
  }

  /** Runs one follow-up tool; the text is what the model reads. */
  async run(name: BackgroundToolName, args: { readonly taskId: string; readonly response?: Record<string, unknown>; readonly waitMs?: number }): Promise<string> {
    const entry = this.#started.get(args.taskId);
    if (entry === undefined) return JSON.stringify({ error: `No background task ${args.taskId} was started here.` });
    const { call } = entry;
    switch (name) {
      case 'task_status': {
        if (typeof args.waitMs === 'number' && args.waitMs > 0) await this.#changeOf(args.taskId, entry, Math.min(args.waitMs, 30_000));
        const task = await this.#client.getTask(args.taskId).catch(() => call.task);
        return JSON.stringify({
          taskId: args.taskId,
          tool: entry.toolName,
          status: task?.status ?? 'unknown',
          ...(task?.statusMessage ? { statusMessage: task.statusMessage } : {}),
          ...(entry.waiting !== null ? { asks: entry.waiting.request, next: 'Answer it with task_respond.' } : {}),
        });
      }
      case 'task_result': {
        const task = await this.#client.getTask(args.taskId).catch(() => call.task);
        if (task !== null && !TERMINAL.has(task.status)) return JSON.stringify({ taskId: args.taskId, status: task.status, next: 'Not ended yet: call task_status or task_result again later.' });
        try {
          const result = await call.result();
          return JSON.stringify({ taskId: args.taskId, status: result.isError === true ? 'failed' : 'completed', isError: result.isError === true, result: resultText(result) });
        } catch (error) {
          return JSON.stringify({ taskId: args.taskId, status: call.task?.status ?? 'failed', error: error instanceof Error ? error.message : String(error) });
        }
      }
      case 'task_cancel': {
        await call.cancel('cancelled by the agent');
        const task = await this.#client.cancelTask(args.taskId).catch(() => call.task);
        return JSON.stringify({ taskId: args.taskId, status: task?.status ?? 'cancelled' });
      }
      case 'task_respond': {
        const waiting = entry.waiting;
        if (waiting === null) return JSON.stringify({ taskId: args.taskId, error: 'The task asks nothing now (see task_status).' });
        entry.waiting = null;
        waiting.answer(args.response ?? {});
        return JSON.stringify({ taskId: args.taskId, answered: waiting.request.method, next: 'Call task_status to follow it.' });
      }
    }
  }
}

