/**
 * The `io.modelcontextprotocol/tasks` extension (protocol 2026-07-28) as a wire dialect.
 *
 * @example
 * ```ts
 * import { EXT_TASKS, renderTaskExt } from '../dialects/ext/index.js';
 * const reply = { resultType: 'task', ...renderTaskExt(view) };
 * ```
 *
 * @experimental
 * @module
 */
export { declaresTasks, EXT_TASKS, renderDetailedTask, renderTaskExt, TASKS_EXTENSION_ID } from './codec.js';
export type { TaskDetail } from './codec.js';
