/**
 * Client-hosted tasks on an SDK v2 `Client` (`@modelcontextprotocol/client` 2.x): a server's
 * `elicitation/create` or `sampling/createMessage` sent task-augmented (2025-11-25 `params.task`)
 * becomes a task of the client's runtime, answered at once with `CreateTaskResult`, and the
 * client serves `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` for it. The same
 * work and answers as the SDK v1 client host; this file is the SDK v2 seam only.
 *
 * @module
 */
import type { Client, ClientContext } from '@modelcontextprotocol/client';
import type { TaskOwner } from '../../machines/index.js';
import type { TaskRuntime, TaskView } from '../../runtime/index.js';
import { renderTask2025, SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';
import { withRelatedMetaFor } from '../dialects/index.js';
import { registerClientWork, workParams } from '../wire/client-task-work.js';
import type { RequestWorkContext } from '../wire/definitions.js';
import { INPUT_REQUEST_TIMEOUT_MS, type InputChannel } from '../wire/input-delivery.js';
import { paramsObject, taskRequest2025 } from '../wire/request-info.js';
import { taskAnswers } from '../wire/task-answers.js';
import { toJsonRpcError } from '../wire/wire-errors.js';
import { registerWithSchema } from '../mcp-server-v2/schema-handler.js';
import { checkSpecParams } from '../mcp-server-v2/spec-params.js';
import { interceptHandlers } from '../mcp-server-v2/v2-sdk-internals.js';
import { unsentProgress } from '../wire/progress-notifications.js';

/** Options of {@link attachTaskHostV2}: the runtime and the client's own answers. */
export interface TaskHostV2Options {
  /** Where the client's tasks live. */
  readonly runtime: TaskRuntime;
  /** Answers `elicitation/create` (e.g. by asking the user); may take as long as it needs. */
  readonly elicitation?: (params: Record<string, unknown>, ctx: RequestWorkContext) => Promise<Record<string, unknown>>;
  /** Answers `sampling/createMessage` (e.g. with the client's model). */
  readonly sampling?: (params: Record<string, unknown>, ctx: RequestWorkContext) => Promise<Record<string, unknown>>;
}

/** The one requester of a client's tasks: the server it is connected to. */
const SERVER: TaskOwner = { session: null, principal: null };

/** A plain (not task) request's context: the work answers at once, nothing to ask back. */
function plainContext(ctx: ClientContext): RequestWorkContext {
  const refuse = (): Promise<never> => Promise.reject(new Error('A client answer cannot ask its server for input'));
  return { taskId: null, signal: ctx.mcpReq.signal, setStatusMessage: () => undefined, progress: unsentProgress(), elicit: refuse, sample: refuse };
}

/**
 * Makes an SDK v2 `Client` host tasks for the sampling and elicitation requests servers send it
 * task-augmented. Call before `client.connect(transport)`; it declares the matching capabilities
 * (`sampling`/`elicitation`, and `tasks.requests.{sampling.createMessage, elicitation.create}`).
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'agent-b', version: '1.0.0' });
 * attachTaskHostV2(client, {
 *   runtime: createTaskRuntime(),
 *   elicitation: async () => ({ action: 'accept', content: { name: 'Ada' } }),
 * });
 * await client.connect(transport);
 * ```
 */
export function attachTaskHostV2(client: Client, options: TaskHostV2Options): void {
  const { runtime } = options;
  const hosted = registerClientWork(runtime, { elicitation: options.elicitation, sampling: options.sampling });
  client.registerCapabilities({
    ...(options.elicitation && { elicitation: {} }),
    ...(options.sampling && { sampling: {} }),
    tasks: { list: {}, cancel: {}, requests: hosted.requests },
  });
  const answers = new Map(hosted.methods);

  // A task is not an answer the SDK's checks let through: a task-augmented request is answered
  // here, ahead of them; a plain one goes on to the SDK's path, checks and all.
  interceptHandlers<ClientContext>(
    client,
    (method, sdkHandler) => {
      if (!answers.has(method as never)) return sdkHandler;
      return async (request, ctx) => {
        const params = paramsObject((request as { params?: unknown }).params, method);
        if (params['task'] === undefined) return sdkHandler(request, ctx);
        try {
          // The checks the SDK's wrapper would run first (loaded here: importing this adapter loads no SDK).
          checkSpecParams((await import('@modelcontextprotocol/client')).specTypeSchemas, method, params);
          const asked = taskRequest2025(params);
          const task = await runtime.create({ taskId: crypto.randomUUID(), owner: SERVER, dialect: SPEC_2025_11_25, method, label: method, keepAlive: asked?.ttl, handler: method, params: workParams(params) });
          return { task: renderTask2025(task, runtime.options.now()) };
        } catch (error) {
          throw toJsonRpcError(error);
        }
      };
    },
    '@modelcontextprotocol/client',
  );
  for (const [method, answer] of answers) {
    client.setRequestHandler(method as 'elicitation/create', async (request, ctx) => (await answer(workParams(request.params as Record<string, unknown>) as never, plainContext(ctx))) as never);
  }

  const channel: InputChannel = { inFlight: new Set(), peerSupports: () => true };
  const taskMethods = taskAnswers(runtime);
  const register = (method: string, handler: (params: Record<string, unknown>, ctx: ClientContext) => Promise<unknown>): void => registerWithSchema<ClientContext>(client, method, handler);
  register('tasks/get', async (params) => (await taskMethods.get(params, SERVER)).answer);
  register('tasks/list', (params) => taskMethods.list(params, SERVER));
  register('tasks/cancel', (params) => taskMethods.cancel(params, SERVER));
  register('tasks/result', (params, ctx) =>
    taskMethods.result(params, SERVER, {
      ...channel,
      signal: ctx.mcpReq.signal,
      // A client's answer asks its server nothing; the channel is there for the shape of the call.
      send: (task: TaskView) => (input, signal) => ctx.mcpReq.send({ method: input.method, params: withRelatedMetaFor(task, input.params) } as never, { signal, timeout: INPUT_REQUEST_TIMEOUT_MS }),
    }),
  );
}
