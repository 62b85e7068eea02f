/**
 * `TaskClient` on an SDK v1 `Client` (`@modelcontextprotocol/sdk` 1.x).
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CreatedRouter } from '../mcp-server/created-router.js';
import { TaskClientCore } from '../wire/task-client.js';
import type { TaskClientOptions } from '../wire/task-client.types.js';
import type { InputRoutes } from '../wire/input-routes.js';
import { requestHandlers } from '../mcp-server/sdk-internals.js';

/**
 * Installs `routes` as the client's `elicitation/create` and `sampling/createMessage` handlers,
 * keeping the handler each had as the fallback; false when the client declared neither capability.
 */
export function installInputRoutesV1(client: Client, routes: InputRoutes): boolean {
  let installed = false;
  for (const [method, schema] of [
    ['elicitation/create', ElicitRequestSchema],
    ['sampling/createMessage', CreateMessageRequestSchema],
  ] as const) {
    const before = requestHandlers(client).get(method) as ((request: unknown, extra: unknown) => Promise<unknown>) | undefined;
    try {
      client.setRequestHandler(schema as typeof ElicitRequestSchema, async (request, extra) =>
        (await routes.answer(method, request.params as Record<string, unknown>, before && (() => before(request, extra)))) as never,
      );
      installed = true;
    } catch {
      // The client did not declare this capability: the server will not ask it.
    }
  }
  return installed;
}

/**
 * Task-augmented tool calls over a connected SDK v1 `Client`, in the SEP-1686 or 2025-11-25 dialect
 * (or 2026-07-28, the tasks extension, through `options.rawDispatch`: see `TaskClientV2`).
 *
 * @param client - a connected SDK client; a `notifications/tasks/created` handler is installed on it
 *   at its first call (a handler installed before is kept and still called)
 * @param options - dialect and polling defaults
 * @example
 * ```ts
 * import { TaskClient } from 'mcp-task-actors/adapters/mcp-client';
 * const tasks = new TaskClient(client, { dialect: 'sep-1686' });
 * const pending = tasks.beginCallTool({ name: 'sleep', arguments: { ms: 2000 } }, { keepAlive: 60_000 });
 * const result = await pending.result({ onTaskStatus: (t) => console.log(t.status, t.statusMessage) });
 * ```
 */
export class TaskClient extends TaskClientCore {
  constructor(client: Client, options: TaskClientOptions = {}) {
    super(client, options, () => CreatedRouter.for(client), {
      capabilities: () => client.getServerCapabilities(),
      installInputRoutes: (routes) => installInputRoutesV1(client, routes),
    });
  }
}
