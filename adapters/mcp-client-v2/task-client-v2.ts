/**
 * `TaskClient` on an SDK v2 `Client` (`@modelcontextprotocol/client` 2.x): task-augmented tool
 * calls in the SEP-1686, 2025-11-25 or 2026-07-28 dialect, driven by the same requester machine
 * as on SDK v1.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { RELATED_TASK_META_KEY } from '../dialects/sep-1686/index.js';
import { TaskClientCore, type CreatedRoutes } from '../wire/task-client.js';
import type { TaskClientOptions } from '../wire/task-client.types.js';
import { ROUTED_INPUT_METHODS, type InputRoutes } from '../wire/input-routes.js';
import { storedRequestHandler } from '../mcp-server-v2/v2-sdk-internals.js';

/**
 * Installs `routes` as the client's `elicitation/create` and `sampling/createMessage` handlers,
 * keeping the handler each had as the fallback; false when the client declared neither capability.
 */
function installInputRoutesV2(client: Client, routes: InputRoutes): boolean {
  let installed = false;
  for (const method of ROUTED_INPUT_METHODS) {
    const before = storedRequestHandler<unknown>(client, method);
    try {
      client.setRequestHandler(method as 'elicitation/create', async (request, ctx) =>
        (await routes.answer(method, request.params as Record<string, unknown>, before && (() => before(request, ctx)))) as never,
      );
      installed = true;
    } catch {
      // The client did not declare this capability: the server will not ask it.
    }
  }
  return installed;
}

const CREATED = 'notifications/tasks/created';
const CreatedParams = z.looseObject({ _meta: z.looseObject({ [RELATED_TASK_META_KEY]: z.looseObject({ taskId: z.string() }) }) });

/** Each v2 client's routes, installed once (the SDK keeps one handler per method). */
const ROUTES = new WeakMap<object, CreatedRoutes>();

function createdRoutes(client: Client): CreatedRoutes {
  const known = ROUTES.get(client);
  if (known) return known;
  const waiting = new Map<string, () => void>();
  // A method outside the SDK's own set: registered with the schema form.
  (client.setNotificationHandler as (m: string, s: { params: unknown }, h: (params: z.infer<typeof CreatedParams>) => void) => void)(CREATED, { params: CreatedParams }, (params) =>
    waiting.get(params._meta[RELATED_TASK_META_KEY].taskId)?.(),
  );
  const routes: CreatedRoutes = {
    route(taskId, onCreated) {
      waiting.set(taskId, onCreated);
      return () => {
        if (waiting.get(taskId) === onCreated) waiting.delete(taskId);
      };
    },
  };
  ROUTES.set(client, routes);
  return routes;
}

/**
 * Task-augmented tool calls from an SDK v2 `Client`, in any of our dialects: the same API as the
 * SDK v1 `TaskClient`.
 * - SEP-1686 and 2025-11-25 go through the client (legacy era); its own elicitation and sampling
 *   handlers answer what a task asks.
 * - 2026-07-28 (the tasks extension) goes through `options.rawDispatch` (the v2 `Client` refuses
 *   `resultType: "task"`); `options.onInputRequest` answers what a task asks (`tasks/update`).
 *
 * @param client - a connected v2 client; a `notifications/tasks/created` handler is installed on
 *   it at its first call (it replaces one installed by someone else before)
 * @param options - dialect, polling defaults, and for 2026-07-28 `rawDispatch` and `onInputRequest`
 * @throws TypeError for the 2026-07-28 dialect without `options.rawDispatch`
 * @example
 * ```ts
 * import { createRawDispatch, TaskClientV2 } from 'mcp-task-actors/adapters/mcp-client-v2';
 * const legacy = new TaskClientV2(client, { dialect: '2025-11-25' });
 * const result = await legacy.beginCallTool({ name: 'sleep', arguments: { ms: 2000 } }).result();
 *
 * const modern = new TaskClientV2(client, {
 *   dialect: '2026-07-28',
 *   rawDispatch: createRawDispatch('http://127.0.0.1:3000/mcp'),
 *   onInputRequest: async ({ method }) => (method === 'elicitation/create' ? { action: 'accept', content: { name: 'Ada' } } : { action: 'decline' }),
 * });
 * const hello = await modern.beginCallTool({ name: 'ask_name', arguments: {} }).result();
 * ```
 */
export class TaskClientV2 extends TaskClientCore {
  constructor(client: Client, options: TaskClientOptions = {}) {
    super(client, options, () => createdRoutes(client), {
      capabilities: () => client.getServerCapabilities(),
      installInputRoutes: (routes) => installInputRoutesV2(client, routes),
    });
  }
}
