/**
 * The inspector: a web page showing every task of a runtime live (table, lifecycle diagram with
 * the task's state highlighted, timeline, outcome), and handlers written as XState machines whose
 * own diagram it draws too.
 *
 * @example
 * ```ts
 * import { createTaskRuntime } from 'mcp-task-actors';
 * import { attachInspector, machineHandler } from './adapters/inspector/index.js';
 *
 * const runtime = createTaskRuntime();
 * runtime.registerHandler('tools/call:job', machineHandler(jobMachine));
 * const inspector = await attachInspector(runtime, { port: 8080 });
 * console.error(`inspector at ${inspector.url}`);
 * ```
 *
 * @module
 */
export { attachInspector } from './attach-inspector.js';
export type { InspectedRuntime } from './attach-inspector.js';
export { COUNTS_INTERVAL_MS } from './inspector.types.js';
export { MAX_PAGE_SIZE } from './task-query.js';
export type {
  Inspector,
  InspectorOptions,
  InspectorEvents,
  TaskQuery,
  TaskPage,
  OperatorView,
  PendingInputView,
  TaskDetail,
  TaskOutcomeView,
  HandlerView,
  ListedTask,
  PartialMark,
  PushDeliverySource,
  PushDeliveryView,
} from './inspector.types.js';
export { isLoopback } from './access.js';
export { machineHandler, handlerStatus, handlerPartial, MachineHandlerEvent } from '../../runtime/handlers/machine-handler.js';
export type { MachineHandlerOptions, MachineWorkContext, HandlerStatusEvent } from '../../runtime/handlers/machine-handler.js';
export type { MachineCheckpoint } from '../../runtime/handlers/machine-checkpoints.js';
export { handlerRuns, HandlerRuns, handlerRunKey, MAX_FINISHED_HANDLER_RUNS } from '../../runtime/handlers/handler-runs.js';
export type { HandlerRun, HandlerRunStatus } from '../../runtime/handlers/handler-runs.js';
