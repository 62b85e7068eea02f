/**
 * `TaskClient` on an SDK v1 `Client` (`@modelcontextprotocol/sdk` 1.x).
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreatedRouter } from '../mcp-server/created-router.js';
import { TaskClientCore } from '../wire/task-client.js';
import type { TaskClientOptions } from '../wire/task-client.types.js';

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
    super(client, options, () => CreatedRouter.for(client));
  }
}
