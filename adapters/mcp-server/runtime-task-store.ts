/**
 * The SDK's `TaskStore`, backed by a task runtime: an existing `McpServer` with `registerToolTask`
 * code switches to mcp-task-actors with one line (`new McpServer(info, { taskStore })`). Unlike the
 * SDK's in-memory store, retention never evicts a running task, and every call is scoped to the
 * session id the SDK passes (another session gets "not found").
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { CreateTaskOptions, TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { TaskOwner } from '../../machines/index.js';
import { isTaskRuntimeError, TaskErrorCode, type TaskRuntime } from '../../runtime/index.js';
import { renderTask2025, SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';

const ownerOfSession = (sessionId: string | undefined): TaskOwner => ({ session: sessionId ?? null, principal: null });

function labelOf(request: Request): string | null {
  const params = request.params as { name?: unknown; uri?: unknown } | undefined;
  if (typeof params?.name === 'string') return params.name;
  return typeof params?.uri === 'string' ? params.uri : null;
}

/** Why a failed result failed: its first text, as the SDK's tool results carry their error there. */
function failureOf(result: Result): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  const text = content?.find((c) => c.type === 'text')?.text;
  return text === undefined ? 'The task failed' : `Tool reported an error: ${text}`;
}

/**
 * A `TaskStore` for SDK servers whose tasks live in a mcp-task-actors runtime.
 *
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * const server = new McpServer(info, { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
 *   taskStore: new RuntimeTaskStore(runtime) });
 * ```
 */
export class RuntimeTaskStore implements TaskStore {
  readonly #runtime: TaskRuntime;

  /** @param runtime - where the tasks live; one runtime may back many servers */
  constructor(runtime: TaskRuntime) {
    this.#runtime = runtime;
  }

  async createTask(taskParams: CreateTaskOptions, _requestId: RequestId, request: Request, sessionId?: string): Promise<Task> {
    const task = await this.#runtime.create({
      taskId: randomUUID(),
      owner: ownerOfSession(sessionId),
      dialect: SPEC_2025_11_25,
      method: request.method,
      label: labelOf(request),
      keepAlive: taskParams.ttl,
      pollFrequency: taskParams.pollInterval,
    });
    return renderTask2025(task, this.#runtime.options.now()) as Task;
  }

  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    try {
      const task = await this.#runtime.get(taskId, ownerOfSession(sessionId));
      return renderTask2025(task, this.#runtime.options.now()) as Task;
    } catch (error) {
      if (isTaskRuntimeError(error, TaskErrorCode.notFound) || isTaskRuntimeError(error, TaskErrorCode.expired)) return null;
      throw error;
    }
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    const owner = ownerOfSession(sessionId);
    await this.#runtime.update(
      taskId,
      owner,
      status === 'completed' ? { status, result } : { status, error: failureOf(result), result },
    );
  }

  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const outcome = await this.#runtime.outcome(taskId, ownerOfSession(sessionId));
    if (!outcome.hasResult) throw new Error(`Task ${taskId} has no result stored (status '${outcome.task.status}')`);
    return outcome.result as Result;
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    const owner = ownerOfSession(sessionId);
    switch (status) {
      case 'working':
      case 'input_required':
        await this.#runtime.update(taskId, owner, { status, statusMessage });
        return;
      case 'cancelled':
        await this.#runtime.cancel(taskId, owner, statusMessage ?? null);
        return;
      case 'failed':
        await this.#runtime.update(taskId, owner, { status, error: statusMessage ?? 'The task failed' });
        return;
      case 'completed':
        // Completion without a stored result: the result is empty.
        await this.#runtime.update(taskId, owner, { status, result: {} });
        return;
    }
  }

  async listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const page = await this.#runtime.list(ownerOfSession(sessionId), { cursor });
    const now = this.#runtime.options.now();
    const tasks = page.tasks.map((t) => renderTask2025(t, now) as Task);
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  }
}
