/**
 * Client-hosted tasks: a client built with the SDK `Client` answers `sampling/createMessage` and
 * `elicitation/create` requests that a server sends task-augmented, in SEP-1686 style
 * (`notifications/tasks/created`, then the normal answer) and in 2025-11-25 style
 * (`CreateTaskResult`), and serves `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`,
 * `tasks/delete` for them. Shares the hosting code of the server adapter.
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { TaskRuntime } from '../../runtime/index.js';
import { wireConnection } from '../mcp-server/connection.js';
import type { RequestWorkContext } from '../wire/definitions.js';
import type { TaskHost } from '../mcp-server/request-context.js';
import { installRequest } from '../mcp-server/request-handlers.js';
import { installTaskMethods } from '../mcp-server/task-methods.js';
import { registerClientWork, workParams } from '../wire/client-task-work.js';

/** Options of {@link attachTaskHost}: the runtime and the client's own answers. */
export interface TaskHostOptions {
  /** Where the client's tasks live. */
  readonly runtime: TaskRuntime;
  /**
   * Answer task requests at the transport, ahead of the SDK's request handling, with the same
   * messages the SDK would send; `false` leaves every request to the SDK.
   * @default true
   */
  readonly fastLane?: boolean;
  /** Answers `elicitation/create` (e.g. by asking the user); may take as long as it needs. */
  readonly elicitation?: (params: ElicitRequestParams, ctx: RequestWorkContext) => Promise<ElicitResult>;
  /** Answers `sampling/createMessage` (e.g. with the client's model). */
  readonly sampling?: (params: CreateMessageRequestParams, ctx: RequestWorkContext) => Promise<CreateMessageResult>;
}

/**
 * Makes an SDK `Client` host tasks for the sampling and elicitation requests servers send it.
 * Call before `client.connect(transport)`; it declares the matching capabilities
 * (`sampling`/`elicitation`, and `tasks.requests.{sampling.createMessage, elicitation.create}`).
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'agent-a', version: '1.0.0' });
 * attachTaskHost(client, {
 *   runtime: createTaskRuntime(),
 *   elicitation: async () => ({ action: 'accept', content: { name: 'Ada' } }),
 * });
 * await client.connect(transport);
 * ```
 */
export function attachTaskHost(client: Client, options: TaskHostOptions): void {
  const { runtime, elicitation, sampling } = options;
  const hosted = registerClientWork(runtime, { elicitation, sampling });
  client.registerCapabilities({
    ...(elicitation && { elicitation: {} }),
    ...(sampling && { sampling: {} }),
    tasks: { list: {}, cancel: {}, requests: hosted.requests },
  });

  const host = client as unknown as TaskHost;
  const connection = wireConnection(host, runtime, { fastLane: options.fastLane ?? true });
  for (const [method, answer] of hosted.methods) {
    installRequest(
      host,
      connection,
      method,
      (requestParams) => {
        const params = workParams(requestParams);
        return { label: method, handler: method, taskSupport: 'optional', params, direct: (ctx) => answer(params as never, ctx) };
      },
      // The SDK Client checks these requests and their answers itself (modes, schemas, defaults):
      // they stay the SDK's; the client's tasks/* methods take the lane.
      { lane: false },
    );
  }
  installTaskMethods(host, runtime, connection);
}
