/**
 * Raw-wire task requests in both dialects, shared by the cluster suites:
 * - 2025-11-25: `tools/call` with `params.task = { ttl }` answers a CreateTaskResult at once;
 * - SEP-1686: `tools/call` with `_meta["modelcontextprotocol.io/task"] = { taskId, keepAlive }` stays
 *   open until the result; `notifications/tasks/created` comes first.
 */
import { randomUUID } from 'node:crypto';
import { ok, type Rec } from './json.js';
import { isRecord, type JSONRPCNotification, type JSONRPCResponse, type JsonRpcId, type Wire } from './types.js';

export const SEP_TASK = 'modelcontextprotocol.io/task';
export const SEP_RELATED = 'modelcontextprotocol.io/related-task';
export const RELATED_2025 = 'io.modelcontextprotocol/related-task';
export const INVALID_PARAMS = -32602;
export const NOT_FOUND = 'Failed to retrieve task: Task not found';
export const TERMINAL_2025 = ['completed', 'failed', 'cancelled'];
export const TERMINAL_SEP = ['completed', 'failed', 'cancelled', 'unknown'];

export type Dialect = 'sep-1686' | '2025-11-25';

/** A task created on a wire. */
export interface CreatedTask {
  readonly dialect: Dialect;
  readonly taskId: string;
  /** The tools/call request (SEP-1686: still open until the result). */
  readonly requestId: JsonRpcId;
}

/** 2025-11-25: task-augmented tools/call; returns the CreateTaskResult's taskId. */
export async function create2025(wire: Wire, tool: string, args: Rec, options: { ttl?: number; timeoutMs?: number; meta?: Rec } = {}): Promise<CreatedTask> {
  const requestId = wire.sendRequestNoWait('tools/call', { name: tool, arguments: args, task: { ttl: options.ttl ?? 60_000 }, ...(options.meta && { _meta: options.meta }) });
  const res = await wire.responseFor(requestId, options.timeoutMs ?? 10_000);
  const created = ok(res);
  const task = created['task'];
  if (!isRecord(task) || typeof task['taskId'] !== 'string' || task['taskId'] === '') {
    throw new Error(`tools/call ${tool} with params.task did not answer a CreateTaskResult: ${JSON.stringify(res)}`);
  }
  return { dialect: '2025-11-25', taskId: task['taskId'], requestId };
}

function createdFor(taskId: string): (n: JSONRPCNotification) => boolean {
  return (n) => {
    if (n.method !== 'notifications/tasks/created' || !isRecord(n.params)) return false;
    const meta = n.params['_meta'];
    const related = isRecord(meta) ? meta[SEP_RELATED] : undefined;
    return isRecord(related) && related['taskId'] === taskId;
  };
}

/** SEP-1686: task-augmented tools/call (left open); waits for notifications/tasks/created. */
export async function createSep(
  wire: Wire,
  tool: string,
  args: Rec,
  options: { taskId?: string; keepAlive?: number; timeoutMs?: number; meta?: Rec } = {},
): Promise<CreatedTask> {
  const taskId = options.taskId ?? randomUUID();
  const requestId = wire.sendRequestNoWait('tools/call', {
    name: tool,
    arguments: args,
    _meta: { ...options.meta, [SEP_TASK]: { taskId, keepAlive: options.keepAlive ?? 60_000 } },
  });
  const timeoutMs = options.timeoutMs ?? 10_000;
  await Promise.race([
    wire.waitForNotification(createdFor(taskId), timeoutMs),
    wire.responseFor(requestId, timeoutMs).then((res) => {
      if (wire.notifications.some(createdFor(taskId))) return;
      throw new Error(`SEP-1686 tools/call ${tool} was answered without notifications/tasks/created for ${taskId}: ${JSON.stringify(res)}`);
    }),
  ]);
  return { dialect: 'sep-1686', taskId, requestId };
}

/** Creates `tool` as a task in `dialect`. */
export function createTask(wire: Wire, dialect: Dialect, tool: string, args: Rec, options: { timeoutMs?: number } = {}): Promise<CreatedTask> {
  return dialect === 'sep-1686' ? createSep(wire, tool, args, options) : create2025(wire, tool, args, options);
}

/** tasks/get, asserted successful. */
export async function getTask(wire: Wire, taskId: string, timeoutMs = 10_000): Promise<Rec> {
  return ok(await wire.request('tasks/get', { taskId }, { timeoutMs }));
}

/** A task state's status (throws when there is none). */
export function statusOf(state: Rec): string {
  const status = state['status'];
  if (typeof status !== 'string') throw new Error(`task state without a string status: ${JSON.stringify(state)}`);
  return status;
}

/** The leading text block of a tool result. */
export function textOf(result: Rec): string {
  const content = result['content'];
  if (!Array.isArray(content)) throw new Error(`result without content: ${JSON.stringify(result)}`);
  const first: unknown = content[0];
  if (!isRecord(first) || first['type'] !== 'text' || typeof first['text'] !== 'string') {
    throw new Error(`result without a leading text block: ${JSON.stringify(result)}`);
  }
  return first['text'];
}

/** Every task tasks/list returns, following nextCursor. */
export async function listAll(wire: Wire, timeoutMs = 10_000): Promise<Rec[]> {
  const tasks: Rec[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 500; page++) {
    const result = ok(await wire.request('tasks/list', cursor === undefined ? {} : { cursor }, { timeoutMs }));
    const pageTasks = result['tasks'];
    if (!Array.isArray(pageTasks)) throw new Error(`tasks/list without tasks: ${JSON.stringify(result)}`);
    for (const t of pageTasks) {
      if (!isRecord(t)) throw new Error(`tasks/list entry is not an object: ${JSON.stringify(t)}`);
      tasks.push(t);
    }
    const next = result['nextCursor'];
    if (next === undefined) return tasks;
    if (typeof next !== 'string' || next === '') throw new Error(`bad nextCursor: ${JSON.stringify(result)}`);
    cursor = next;
  }
  throw new Error('tasks/list did not end within 500 pages');
}

/** Asserts a JSON-RPC error with `code` whose message contains `contains` (case-insensitive); returns it. */
export function expectError(res: JSONRPCResponse, code: number, contains: string, context = ''): void {
  if (res.error === undefined) throw new Error(`expected JSON-RPC error ${code} (${contains}), got ${JSON.stringify(res)} ${context}`);
  if (res.error.code !== code || !res.error.message.toLowerCase().includes(contains.toLowerCase())) {
    throw new Error(`expected JSON-RPC error ${code} containing '${contains}', got ${JSON.stringify(res.error)} ${context}`);
  }
}
