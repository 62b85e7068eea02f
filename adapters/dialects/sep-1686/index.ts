/**
 * The SEP-1686 wire dialect (the original tasks proposal): task metadata parsing and rendering.
 *
 * @example
 * ```ts
 * import { parseTaskMeta, renderTask } from './index.js';
 * const req = parseTaskMeta(request.params._meta);
 * ```
 *
 * @module
 */
export {
  SEP_1686,
  TASK_META_KEY,
  RELATED_TASK_META_KEY,
  MAX_TASK_ID_LENGTH,
  Sep1686MetaError,
  parseTaskMeta,
  relatedMeta,
  withRelatedMeta,
  renderTask,
} from './codec.js';
export type { Sep1686TaskRequest } from './codec.js';
