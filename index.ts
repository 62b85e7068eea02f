/**
 * mcp-task-actors: any MCP request (a tool call, a prompt, a resource read) can become a task that
 * its requester polls and fetches later. This entry point needs no MCP SDK: the runtime (embedded,
 * in memory), typed tool, prompt and resource definitions, durable machine handlers, and errors.
 * The SDK adapters, the HTTP endpoint and the NATS backend have entry points of their own.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { createTaskRuntime, defineTaskTool } from 'mcp-task-actors';
 * const runtime = createTaskRuntime();
 * const countWords = defineTaskTool({
 *   name: 'count_words',
 *   inputSchema: z.object({ text: z.string() }),
 *   run: async ({ text }) => ({ content: [{ type: 'text', text: `${text.split(/\s+/).length} words` }] }),
 * });
 * ```
 *
 * @module
 */

// The runtime.
export { createTaskRuntime } from './runtime/backends/memory/memory-runtime.js';
// Starting a task from the same process (no wire): any backend.
export { startTask, IN_PROCESS_OWNER } from './runtime/start-task.js';
export type { StartTaskOptions, StartedTask } from './runtime/start-task.js';
export type { TaskRuntimeOptions, PushSettings } from './runtime/options.js';
export type {
  TaskRuntime,
  TaskView,
  TaskHandler,
  TaskHandlerContext,
  TaskCheckpoint,
  HandlerOptions,
  TaskSelector,
  CreateTaskOptions,
  TaskPage,
  ReadOptions,
  WaitOptions,
  TaskChange,
  TaskUpdate,
  TaskOutcome,
  InputRequest,
  InputAnswer,
  SpawnOptions,
  Subtask,
} from './runtime/task-runtime.types.js';
export type { CloseOptions, Readiness } from './runtime/drain.types.js';
export type { TraceCarrier } from './runtime/telemetry/tracing.js';
export type { TaskOwner, TaskStatus } from './machines/index.js';
export { DEFAULT_LIMITS } from './runtime/limits.js';
export type { RequesterLimits } from './runtime/limits.js';
export { MIN_POLL_INTERVAL_MS } from './runtime/core/poll-pacing.js';

// Errors.
export {
  errors,
  isTaskRuntimeError,
  TaskErrorCode,
  TaskRuntimeError,
  TaskNotFoundError,
  TaskExpiredError,
  TaskNotCompletedError,
  DuplicateTaskIdError,
  InvalidCursorError,
  InvalidArgumentError,
  TaskTerminalError,
  TaskTimeoutError,
  TaskLimitError,
  RuntimeDisposedError,
  RuntimeDrainingError,
  StoreUnavailableError,
  TaskFailure,
  SubtaskFailedError,
  InputUnsupportedError,
} from './runtime/errors.js';
// What a task's requester can be asked (`CreateTaskOptions.requesterCapabilities`).
export { declaredInputCapabilities } from './runtime/core/input-capabilities.js';

// What a server serves: typed definitions, the same for SDK v1 and v2 and for NATS workers.
export { defineTaskTool, defineTaskPrompt, defineTaskResource, TaskSupport } from './adapters/wire/definitions.js';
// A worker process of your own (NATS): the same definitions' work, registered with no server.
export { registerTaskWork } from './adapters/wire/register-work.js';
export type { TaskToolDefinition, TaskPromptDefinition, TaskResourceDefinition, TaskServerDefinitions, InlineAnswerOptions, RequestWorkContext, BeforeTaskOutcome } from './adapters/wire/definitions.js';
export type {
  CallToolResult,
  ContentBlock,
  TextContent,
  MediaContent,
  ResourceLinkContent,
  EmbeddedResourceContent,
  GetPromptResult,
  ReadResourceResult,
  ElicitRequestParams,
  ElicitResult,
  CreateMessageRequestParams,
  CreateMessageResult,
} from './adapters/wire/mcp-shapes.js';

// Durable handlers: an XState machine as a task's work, checkpointed at every state it enters.
export { machineHandler, handlerStatus, handlerPartial, handlerProgress, MachineHandlerEvent } from './runtime/handlers/machine-handler.js';
export type { MachineHandlerOptions, MachineWorkContext, HandlerStatusEvent, HandlerPartialEvent, HandlerProgressEvent } from './runtime/handlers/machine-handler.js';
export type { MachineCheckpoint } from './runtime/handlers/machine-checkpoints.js';

// Watching tasks (the inspector's source, for operators' own tools).
export { TimelineEvent, MAX_TIMELINE_ENTRIES } from './runtime/observer.types.js';
export type { TaskObserver, ObservedTask, ObservedResult, TimelineEntry, ObserverUpdate } from './runtime/observer.types.js';
export type { MachineGraph, GraphNode, GraphEdge, StateKind } from './runtime/handlers/machine-graph.types.js';

// Push notifications (webhooks): what a receiver verifies.
export { verifyPush, signPush, PushHeader } from './runtime/push/push-signing.js';
export { PUSH_EVENT_TYPE } from './runtime/push/push-notifier.js';
export type { PushRequest } from './runtime/push/push-request.js';
export type { DeliveryAttempt, PushTarget } from './runtime/push/push.types.js';

// The audit log and its suspicion report.
export { AuditEvent, DEFAULT_SUSPICION_THRESHOLDS } from './runtime/audit/index.js';
export type { AuditOptions, SecurityReport, SuspectRequester, SuspicionThresholds } from './runtime/audit/index.js';
export type { Logger } from './runtime/logger.js';
