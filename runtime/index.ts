/**
 * The task runtime: create tasks, poll them, fetch results, cancel and delete, on the in-memory
 * backend (the embedded default).
 *
 * @example
 * ```ts
 * import { createTaskRuntime } from 'mcp-task-actors';
 * const runtime = createTaskRuntime();
 * runtime.registerHandler('tools/call:sleep', async () => ({ content: [] }));
 * ```
 *
 * @module
 */
export { createTaskRuntime } from './backends/memory/memory-runtime.js';
export { startTask, IN_PROCESS_OWNER } from './start-task.js';
export type { StartTaskOptions, StartedTask } from './start-task.js';

export { resolveTaskRuntimeOptions } from './options.js';
export type { TaskRuntimeOptions, ResolvedTaskRuntimeOptions, PushSettings } from './options.js';
export { verifyPush, signPush, PushHeader } from './push/push-signing.js';
export type { PushRequest } from './push/push-request.js';
export type { DeliveryAttempt, PushTarget } from './push/push.types.js';
export { PUSH_EVENT_TYPE } from './push/push-notifier.js';
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
} from './task-runtime.types.js';
export type { CloseOptions, Readiness } from './drain.types.js';
export type { TraceCarrier } from './telemetry/tracing.js';
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
} from './errors.js';
export { declaredInputCapabilities, INPUT_CAPABILITIES, refusedInput } from './core/input-capabilities.js';
export { TimelineEvent, MAX_TIMELINE_ENTRIES } from './observer.types.js';
export { progressReport } from './core/work-context.js';
export type { TaskObserver, ObservedTask, ObservedResult, TimelineEntry, ObserverUpdate } from './observer.types.js';
export type { MachineGraph, GraphNode, GraphEdge, StateKind } from './handlers/machine-graph.types.js';
// The status in every observed task and timeline entry, so an operator's tool needs only this entry point.
export type { TaskStatus } from '../machines/index.js';
export { DeadlineScheduler } from './scheduler.js';
export { MIN_POLL_INTERVAL_MS, suggestedPollInterval } from './core/poll-pacing.js';
export type { PollTiming } from './core/poll-pacing.js';
export { DEFAULT_LIMITS, resolveLimits } from './limits.js';
export { AuditEvent, DEFAULT_SUSPICION_THRESHOLDS } from './audit/index.js';
export type { AuditOptions, SecurityReport, SuspectRequester, SuspicionThresholds } from './audit/index.js';
export type { Logger } from './logger.js';
export type { RequesterLimits } from './limits.js';
