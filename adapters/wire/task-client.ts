/**
 * `TaskClient`: task-augmented tool calls over a connected SDK `Client`, each driven by a
 * requester actor (`machines/requester.machine.ts`) whose effects are bound here to the wire.
 *
 * @module
 */
import { DEFAULT_PACED_RETRIES, pacedPeer } from './task-client.retry.js';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CallToolResult } from './mcp-shapes.js';
import { DEFAULT_MAX_CANCEL_POLLS, DEFAULT_REQUESTER_POLL_FREQUENCY, type RequesterDialect, type RequesterTask } from '../../machines/index.js';
import type { BeginCallOptions, CallToolParams, PendingTask, ResolvedTaskClientOptions, ResumeOptions, TaskClientOptions } from './task-client.types.js';
import { ExtensionPeer } from './task-client.ext-peer.js';
import { NO_TIMEOUT, TaskWire, toRequesterTask, type RequesterPeer } from './task-client.wire.js';
import { TaskClientError, TaskClientErrorCode } from './task-client.errors.js';
import { ActorPendingTask, type CreatedRoutes, type Flight } from './task-client.pending.js';
import { CallHandle, type CallEngine } from './task-call.js';
import type { CallDialect, CallOptions, DialectChoice, TaskCall, TaskRefOptions } from './task-call.types.js';
import { chooseCallDialect, chooseTaskDialect, confirm2025, listedTaskSupport, type ServerView } from './dialect-choice.js';
import { InputRoutes } from './input-routes.js';
import { TaskMetaReader } from './task-updates.js';
import { tracedPeer } from './traced-peer.js';

export type { CreatedRoutes } from './task-client.pending.js';

/**
 * Applies the defaults of `TaskClientOptions`.
 *
 * @example
 * ```ts
 * resolveTaskClientOptions({}); // { dialect: 'auto', pollFrequency: 1000, maxCancelPolls: 10, pacedRetries: 5 }
 * ```
 */
export function resolveTaskClientOptions(options: TaskClientOptions = {}): ResolvedTaskClientOptions {
  return {
    dialect: options.dialect ?? 'auto',
    pollFrequency: options.pollFrequency ?? DEFAULT_REQUESTER_POLL_FREQUENCY,
    maxCancelPolls: options.maxCancelPolls ?? DEFAULT_MAX_CANCEL_POLLS,
    pacedRetries: options.pacedRetries ?? DEFAULT_PACED_RETRIES.retries,
  };
}

/**
 * What a task client needs of its SDK line beyond requests: the server's capabilities, and a way
 * to install the per-call input routes as the client's `elicitation/create` and
 * `sampling/createMessage` handlers (returns false when the client cannot take them).
 */
export interface SdkSide {
  readonly capabilities: () => Record<string, unknown> | undefined;
  readonly installInputRoutes?: (routes: InputRoutes) => boolean;
}

/**
 * One tool as `tools/list` gives it (the fields a requester reads; the rest kept as it came).
 *
 * @example
 * ```ts
 * const listed: ListedTool = { name: 'sleep', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } };
 * ```
 */
export interface ListedTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
  readonly execution?: { readonly taskSupport?: string };
}

const ToolResultSchema = z.looseObject({ content: z.array(z.looseObject({ type: z.string() })).default([]) });
const AnyResultSchema = z.looseObject({});

/** Who a 2026-07-28 requester says it is, unless `options.clientInfo` says otherwise. */
const CLIENT_INFO = { name: 'mcp-task-actors', version: '0.1.0' };

/**
 * Task-augmented tool calls over a connected SDK client, in the SEP-1686, 2025-11-25 or
 * 2026-07-28 (tasks extension) dialect: the SDK-free core of `TaskClient` (SDK v1) and
 * `TaskClientV2` (SDK v2), each of which passes its SDK's way to hear `notifications/tasks/created`.
 * Each call is driven by a requester actor: SEP-1686 races the direct response against
 * `notifications/tasks/created` (so a receiver without task support just answers), then polls
 * `tasks/get` and fetches `tasks/result`; 2025-11-25 polls the task from `CreateTaskResult`;
 * 2026-07-28 sends its requests through `options.rawDispatch`, polls the task from the flat
 * `CreateTaskResult`, answers what it asks with `options.onInputRequest` (`tasks/update`) and
 * reads the result inlined in `tasks/get`.
 *
 * @param client - a connected SDK client; a `notifications/tasks/created` handler is installed on it
 * @param options - dialect and polling defaults
 * @example
 * ```ts
 * import { TaskClient } from 'mcp-task-actors/adapters/mcp-client';
 * const tasks = new TaskClient(client, { dialect: 'sep-1686' });
 * const pending = tasks.beginCallTool({ name: 'sleep', arguments: { ms: 2000 } }, { keepAlive: 60_000 });
 * const result = await pending.result({ onTaskStatus: (t) => console.log(t.status, t.statusMessage) });
 * ```
 */
export class TaskClientCore {
  readonly options: ResolvedTaskClientOptions;
  readonly #client: RequesterPeer;
  readonly #routes: () => CreatedRoutes;
  #router: CreatedRoutes | undefined;
  readonly #live = new Set<ActorPendingTask>();
  readonly #extension: RequesterPeer | undefined;
  readonly #onInputRequest: TaskClientOptions['onInputRequest'];
  readonly #sdk: SdkSide;
  /** Each tool's listed `execution.taskSupport`, asked once per client. */
  readonly #taskSupport = new Map<string, Promise<string | undefined>>();
  #inputRoutes: InputRoutes | undefined;
  #inputRoutesTried = false;

  /**
   * @param routes - the client's `notifications/tasks/created` routes (SDK-specific: each SDK
   *   line's entry passes its own); made on the first call
   * @param sdk - the server's capabilities and the input routes' installer (SDK-specific)
   * @throws TypeError when the dialect is 2026-07-28 and `options.rawDispatch` is missing
   */
  constructor(client: RequesterPeer, options: TaskClientOptions, routes: () => CreatedRoutes, sdk: SdkSide = { capabilities: () => undefined }) {
    // Every request it sends, on any dialect, in a CLIENT span whose context rides in `_meta`.
    this.options = resolveTaskClientOptions(options);
    // Refusals that say when to come back are waited out and sent again (see `pacedPeer`).
    this.#client = tracedPeer(pacedPeer(client, { retries: this.options.pacedRetries }));
    this.#sdk = sdk;
    this.#routes = routes;
    this.#onInputRequest = options.onInputRequest;
    if (options.rawDispatch !== undefined) {
      const clientCapabilities = options.clientCapabilities ?? (options.onInputRequest === undefined ? {} : { elicitation: {}, sampling: {} });
      this.#extension = tracedPeer(pacedPeer(new ExtensionPeer(options.rawDispatch, { clientInfo: options.clientInfo ?? CLIENT_INFO, clientCapabilities }), { retries: this.options.pacedRetries }));
    }
    // Refuses the 2026-07-28 dialect without a raw dispatch now, not at the first call.
    if (this.options.dialect !== 'auto') this.#peer(this.options.dialect);
  }

  /**
   * Calls a tool and hands back the call at once: as a task when the server can run it as one (in
   * the negotiated dialect, see {@link DialectChoice}), else as a plain call. The outcome has one
   * shape on every dialect (see {@link TaskCall}).
   *
   * @param params - tool name and arguments
   * @param options - retention, a cancelling `signal`, a per-call `onInputRequest`, the dialect
   * @returns the call in flight
   * @example
   * ```ts
   * const call = tasks.callTool({ name: 'long_job', arguments: { seconds: 5 } }, { signal: AbortSignal.timeout(60_000) });
   * for await (const update of call.updates()) console.log(update.type);
   * const result = await call.result(); // isError: true when the tool or the task failed
   * ```
   */
  callTool(params: CallToolParams, options: CallOptions = {}): TaskCall {
    return new CallHandle(this.#engine(), { kind: 'call', params, options });
  }

  /**
   * Picks up a task made earlier, by this process or another (a serialized id): follows it to its
   * outcome. Over Streamable HTTP, a task bound to a session needs that session
   * (`new StreamableHTTPClientTransport(url, { sessionId })`); an authenticated requester's
   * 2025-11-25 task is bound to its principal and found from any of its connections.
   *
   * @param taskId - the task to follow
   * @param options - the dialect it was made in (negotiated by default), a per-task `onInputRequest`
   * @example
   * ```ts
   * const result = await new TaskClient(reconnected).task(taskId).result();
   * ```
   */
  task(taskId: string, options: TaskRefOptions = {}): TaskCall {
    return new CallHandle(this.#engine(), { kind: 'task', taskId, options });
  }

  /**
   * Lists the server's tools (`tools/list`, every page), each with its input schema and
   * `execution.taskSupport`: what an agent framework adapter turns into the framework's tools.
   *
   * @example
   * ```ts
   * for (const tool of await tasks.listTools()) console.log(tool.name, tool.execution?.taskSupport);
   * ```
   */
  async listTools(): Promise<ListedTool[]> {
    const all: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1_000; page++) {
      const answer = (await this.#client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, AnyResultSchema)) as Record<string, unknown>;
      for (const raw of Array.isArray(answer['tools']) ? answer['tools'] : []) {
        if (typeof raw === 'object' && raw !== null && typeof (raw as { name?: unknown }).name === 'string') all.push(raw as ListedTool);
      }
      cursor = typeof answer['nextCursor'] === 'string' ? answer['nextCursor'] : undefined;
      if (cursor === undefined) break;
    }
    return all;
  }

  /**
   * Reads a task once (`tasks/get`), in the dialect it was made in (negotiated by default).
   *
   * @example
   * ```ts
   * const task = await tasks.getTask(taskId); // { taskId, status: 'working', statusMessage: 'step 3/10', … }
   * ```
   */
  getTask(taskId: string, options: Pick<TaskRefOptions, 'dialect'> = {}): Promise<RequesterTask> {
    const dialect = this.#engine().taskDialect(options.dialect);
    return new TaskWire(this.#peer(dialect), dialect).getTask(taskId);
  }

  /**
   * Asks the server to cancel a task (`tasks/cancel`), from any connection that may reach it (no
   * handle needed); resolves with the task as the server then shows it.
   *
   * @example
   * ```ts
   * const task = await tasks.cancelTask(taskId); // status 'cancelled'
   * ```
   */
  cancelTask(taskId: string, options: Pick<TaskRefOptions, 'dialect'> = {}): Promise<RequesterTask> {
    const dialect = this.#engine().taskDialect(options.dialect);
    return new TaskWire(this.#peer(dialect), dialect).cancelTask(taskId);
  }

  /**
   * Lists the requester's tasks (`tasks/list`, every page). The 2026-07-28 wire has no listing: a
   * task there is reached by its id alone.
   *
   * @throws TaskClientError (`request_failed`) on the 2026-07-28 dialect
   * @example
   * ```ts
   * for (const task of await tasks.listTasks()) console.log(task.taskId, task.status);
   * ```
   */
  async listTasks(options: Pick<TaskRefOptions, 'dialect'> = {}): Promise<RequesterTask[]> {
    const dialect = this.#engine().taskDialect(options.dialect);
    if (dialect === '2026-07-28') throw new TaskClientError(TaskClientErrorCode.requestFailed, 'The 2026-07-28 wire has no tasks/list: a task there is reached by its id alone');
    const all: RequesterTask[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1_000; page++) {
      const answer = (await this.#client.request({ method: 'tasks/list', params: cursor === undefined ? {} : { cursor } }, AnyResultSchema)) as Record<string, unknown>;
      for (const raw of Array.isArray(answer['tasks']) ? answer['tasks'] : []) all.push(toRequesterTask(raw));
      cursor = typeof answer['nextCursor'] === 'string' ? answer['nextCursor'] : undefined;
      if (cursor === undefined) break;
    }
    return all;
  }

  /**
   * Starts a task-augmented `tools/call`.
   *
   * @param params - tool name and arguments
   * @param options - `keepAlive` and `taskId` (SEP-1686), `ttl` (2025-11-25)
   * @returns the task in flight
   * @example
   * ```ts
   * const pending = tasks.beginCallTool({ name: 'long_job', arguments: { seconds: 3 } });
   * setTimeout(() => pending.cancel(), 500);
   * ```
   */
  beginCallTool(params: CallToolParams, options: BeginCallOptions = {}): PendingTask {
    const dialect = this.#legacyDialect();
    const taskId = dialect === 'sep-1686' ? (options.taskId ?? randomUUID()) : undefined;
    return this.#track({ dialect, taskId, call: { params, options } });
  }

  /**
   * Picks up an existing task by id: polls `tasks/get`, then fetches `tasks/result`. Use it after
   * a reconnect; over Streamable HTTP, `new StreamableHTTPClientTransport(url, { sessionId })`
   * keeps the session, so the receiver still recognises the requester.
   *
   * @param taskId - the task to follow
   * @param options - the dialect it was created in
   * @throws TypeError for the 2026-07-28 dialect when the client has no `options.rawDispatch`
   * @example
   * ```ts
   * const result = await new TaskClient(reconnected).resume(taskId).result();
   * ```
   */
  resume(taskId: string, options: ResumeOptions = {}): PendingTask {
    return this.#track({ dialect: options.dialect ?? this.#legacyDialect(), taskId, call: undefined });
  }

  /**
   * Stops following every task of this client (the tasks themselves go on); pending `result()`
   * calls reject with code `disposed`.
   *
   * @example
   * ```ts
   * tasks.dispose();
   * ```
   */
  dispose(): void {
    for (const pending of this.#live) pending.stop();
    this.#live.clear();
  }

  // The 2026-07-28 wire goes through the raw dispatch: SDK clients refuse its task results.
  #peer(dialect: RequesterDialect): RequesterPeer {
    if (dialect !== '2026-07-28') return this.#client;
    if (this.#extension === undefined) {
      throw new TypeError('The 2026-07-28 dialect needs options.rawDispatch (e.g. createRawDispatch(url) from mcp-task-actors/adapters/mcp-client-v2): SDK clients refuse resultType "task"');
    }
    return this.#extension;
  }

  // `beginCallTool` and `resume` predate negotiation: 'auto' means their old default there.
  #legacyDialect(): RequesterDialect {
    return this.options.dialect === 'auto' ? 'sep-1686' : this.options.dialect;
  }

  #server(): ServerView {
    return { capabilities: this.#sdk.capabilities(), canSpeakExtension: this.#extension !== undefined };
  }

  #engine(): CallEngine {
    const pick = (asked: DialectChoice | undefined): DialectChoice => asked ?? this.options.dialect;
    return {
      callDialect: async (tool, asked): Promise<CallDialect> => {
        const choice = pick(asked);
        if (choice === '2025-11-25') return confirm2025(this.#server(), () => this.#listedTaskSupport(tool));
        if (choice !== 'auto') return (this.#peer(choice), choice);
        return chooseCallDialect(this.#server(), () => this.#listedTaskSupport(tool));
      },
      taskDialect: (asked) => {
        const choice = pick(asked);
        const dialect = choice === 'auto' ? chooseTaskDialect(this.#server()) : choice;
        this.#peer(dialect);
        return dialect;
      },
      track: (flight, hooks) => this.#start(flight, hooks),
      plain: (params, signal, onProgress) =>
        this.#client.request({ method: 'tools/call', params: { ...params } }, ToolResultSchema, { signal, timeout: NO_TIMEOUT, onprogress: onProgress }) as Promise<CallToolResult>,
      inputRoutes: (wanted) => {
        if (this.#inputRoutes === undefined && !this.#inputRoutesTried && (wanted || this.#onInputRequest !== undefined)) {
          this.#inputRoutesTried = true;
          const routes = new InputRoutes(this.#onInputRequest);
          if (this.#sdk.installInputRoutes?.(routes) === true) this.#inputRoutes = routes;
        }
        return this.#inputRoutes;
      },
    };
  }

  #listedTaskSupport(tool: string): Promise<string | undefined> {
    let known = this.#taskSupport.get(tool);
    if (known === undefined) {
      known = listedTaskSupport((cursor) => this.#client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, AnyResultSchema), tool);
      // A failed listing is asked again next time.
      known.catch(() => this.#taskSupport.delete(tool));
      this.#taskSupport.set(tool, known);
    }
    return known;
  }

  #track(flight: Flight): PendingTask {
    return this.#start(flight, { onInputRequest: undefined, onProgress: undefined }).pending;
  }

  #start(flight: Flight, hooks: { readonly onInputRequest: CallOptions['onInputRequest']; readonly onProgress: ((p: { progress: number }) => void) | undefined }): { pending: ActorPendingTask; wire: TaskWire } {
    let peer = this.#peer(flight.dialect);
    const observe = flight.observe;
    if (observe !== undefined) peer = new TaskMetaReader(observe.push).wrap(peer);
    const wire = new TaskWire(peer, flight.dialect, hooks.onInputRequest ?? this.#onInputRequest, hooks.onProgress);
    const pending = new ActorPendingTask(wire, (this.#router ??= this.#routes()), this.options, flight);
    this.#live.add(pending);
    void pending.result().then(
      () => this.#live.delete(pending),
      () => this.#live.delete(pending),
    );
    return { pending, wire };
  }
}
