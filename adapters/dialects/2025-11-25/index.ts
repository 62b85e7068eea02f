/**
 * The 2025-11-25 wire dialect: `params.task`, `CreateTaskResult`, ISO-timestamped tasks.
 *
 * @example
 * ```ts
 * import { parseTaskParams, renderTask2025 } from './index.js';
 * ```
 *
 * @module
 */
export {
  SPEC_2025_11_25,
  RELATED_TASK_META_KEY_2025,
  TaskParamsError,
  parseTaskParams,
  renderTask2025,
  statusOf2025,
  withRelatedMeta2025,
} from './codec.js';
export type { TaskParams2025 } from './codec.js';
