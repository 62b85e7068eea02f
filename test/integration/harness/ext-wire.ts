/**
 * Raw HTTP JSON-RPC on the stateless 2026-07-28 wire (tasks extension): every request carries its
 * own `_meta` (version, client info, capabilities) and the SEP-2243 routing headers.
 */
import { expect } from 'vitest';

export const EXT_VERSION = '2026-07-28';
export const EXT_ID = 'io.modelcontextprotocol/tasks';
/** Client capabilities that declare the tasks extension. */
export const WITH_EXT = { extensions: { [EXT_ID]: {} } };

export interface ExtReply {
  readonly id: number;
  readonly status: number;
  readonly body: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

export interface PostOptions {
  /** Client capabilities of this request; {@link WITH_EXT} unless given. */
  readonly caps?: Record<string, unknown>;
  /** Header overrides (`undefined` drops a header). */
  readonly headers?: Record<string, string | undefined>;
  /** Replaces `_meta` entirely (`null` sends none). */
  readonly meta?: Record<string, unknown> | null;
}

type Task = Record<string, unknown>;

/** A requester on the stateless wire of one endpoint. */
export interface ExtWire {
  post(method: string, params?: Record<string, unknown>, options?: PostOptions): Promise<ExtReply>;
  /** `tools/call` that must not fail; its result. */
  call(name: string, args: Record<string, unknown>, options?: PostOptions): Promise<Task>;
  /** `tasks/get` that must not fail; its result. */
  getTask(taskId: string): Promise<Task>;
  /** Polls `tasks/get` until `done` holds. */
  until(taskId: string, done: (task: Task) => boolean, timeoutMs?: number): Promise<Task>;
}

let nextId = 1;

export const isTerminal = (t: Task): boolean => ['completed', 'failed', 'cancelled'].includes(String(t['status']));

/** Checks an error reply: HTTP status, the request's own id echoed, the JSON-RPC code. */
export function expectError(reply: ExtReply, status: number, code: number): { code: number; message: string; data?: unknown } {
  expect(reply.body.id).toBe(reply.id);
  expect(reply.body.error?.code).toBe(code);
  expect(reply.status).toBe(status);
  return reply.body.error!;
}

/** A requester for the endpoint at `url`. */
export function extWire(url: string): ExtWire {
  const post: ExtWire['post'] = async (method, params = {}, o = {}) => {
    const id = nextId++;
    const meta =
      o.meta === null
        ? undefined
        : (o.meta ?? {
            'io.modelcontextprotocol/protocolVersion': EXT_VERSION,
            'io.modelcontextprotocol/clientInfo': { name: 'ext-test', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': o.caps ?? WITH_EXT,
          });
    const target = params['name'] ?? params['uri'] ?? params['taskId'];
    const name = typeof target === 'string' ? target : undefined;
    const headers: Record<string, string | undefined> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': EXT_VERSION,
      'mcp-method': method,
      ...(name !== undefined && { 'mcp-name': name }),
      ...o.headers,
    };
    const res = await fetch(url, {
      method: 'POST',
      headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined)),
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: meta === undefined ? params : { ...params, _meta: meta } }),
    });
    return { id, status: res.status, body: (await res.json()) as ExtReply['body'] };
  };
  const ok = async (reply: Promise<ExtReply>): Promise<Task> => {
    const { body } = await reply;
    expect(body.error, JSON.stringify(body.error)).toBeUndefined();
    return body.result!;
  };
  const getTask = (taskId: string): Promise<Task> => ok(post('tasks/get', { taskId }));
  return {
    post,
    call: (name, args, options) => ok(post('tools/call', { name, arguments: args }, options)),
    getTask,
    until: async (taskId, done, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const task = await getTask(taskId);
        if (done(task)) return task;
        if (Date.now() > deadline) throw new Error(`task ${taskId} did not get there: ${JSON.stringify(task)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
