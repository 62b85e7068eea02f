/**
 * The task list's one rule: which tasks a {@link TaskQuery} selects (the same for `/api/tasks`,
 * the `snapshot` of `/api/events` and each stream's `matches`), in which order (newest first), and
 * where a page starts. Parsed from the query string with a 400 naming the parameter at fault.
 *
 * @module
 */
import { TaskStatus } from '../../machines/index.js';
import type { ObservedTask } from '../../runtime/index.js';
import type { TaskPage, TaskQuery } from './inspector.types.js';
import { bearerTask, withoutCredentials } from './redaction.js';

/** The most tasks one page may hold (`limit`). */
export const MAX_PAGE_SIZE = 500;

const STATUSES: readonly string[] = Object.values(TaskStatus);
const TEXT_FILTERS = ['method', 'label', 'node', 'owner', 'dialect', 'q', 'taskId'] as const;
/** Every parameter a query reads. */
const QUERY_PARAMETERS = ['status', ...TEXT_FILTERS, 'limit', 'since', 'cursor'] as const;
/** Longest value of a text filter: ids and names are far shorter; more is a mistake or a probe. */
const MAX_FILTER_LENGTH = 1_000;

/** A query parameter that could not be read: its name and why. */
export interface QueryRefusal {
  readonly parameter: string;
  readonly message: string;
}

/** Where a page starts: after this task in the list's order. */
interface Position {
  readonly createdAt: number;
  readonly key: string;
}

function refusal(parameter: string, message: string): { refused: QueryRefusal } {
  return { refused: { parameter, message: `Bad Request: query parameter '${parameter}' ${message}` } };
}

/**
 * Encodes where the next page starts. Opaque to the page: it only hands it back.
 *
 * @example
 * ```ts
 * const next = encodeCursor({ createdAt: t.createdAt, key: t.key });
 * ```
 */
export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.key]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): Position | null {
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(cursor)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isFinite(value[0]) && typeof value[1] === 'string') return { createdAt: value[0] as number, key: value[1] };
  } catch {
    // not JSON: refused below
  }
  return null;
}

// Epoch ms (digits only) or an ISO 8601 date (`2026-07-28`, `2026-07-28T10:00:00Z`).
function parseSince(value: string): number | null {
  if (/^\d{1,16}$/.test(value)) return Number(value);
  const date = /^(\d{4})-(\d{2})-(\d{2})([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
  if (date === null) return null;
  // A day the calendar has: Date.parse rolls 2026-02-30 over to 2 March.
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  const day0 = new Date(Date.UTC(year, month - 1, day));
  if (day0.getUTCFullYear() !== year || day0.getUTCMonth() !== month - 1 || day0.getUTCDate() !== day) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : at;
}

/**
 * Reads a {@link TaskQuery} from a query string. An empty value is the same as an absent one (a
 * form's unset field); unknown parameters (the access `token`) are ignored.
 *
 * @param params - the request's query
 * @param pageSize - the `limit` when none is given
 * @returns the query, or which parameter is wrong and a message for the 400
 * @example
 * ```ts
 * const parsed = parseTaskQuery(new URLSearchParams('status=working&limit=50'), 100);
 * if ('refused' in parsed) return json(res, 400, { error: parsed.refused.message, parameter: parsed.refused.parameter });
 * ```
 */
export function parseTaskQuery(params: URLSearchParams, pageSize: number): { query: TaskQuery } | { refused: QueryRefusal } {
  const get = (name: string): string | undefined => {
    const value = params.get(name);
    return value === null || value === '' ? undefined : value;
  };
  // One value per parameter: a second one would be dropped without a word.
  for (const name of QUERY_PARAMETERS) if (params.getAll(name).length > 1) return refusal(name, 'is given more than once (give one value)');
  const query: { -readonly [K in keyof TaskQuery]: TaskQuery[K] } = { limit: pageSize };
  const status = get('status');
  if (status !== undefined) {
    if (!STATUSES.includes(status)) return refusal('status', `must be one of ${STATUSES.join(', ')}, got ${JSON.stringify(status.slice(0, 40))}`);
    query.status = status as TaskStatus;
  }
  for (const name of TEXT_FILTERS) {
    const value = get(name);
    if (value === undefined) continue;
    if (value.length > MAX_FILTER_LENGTH) return refusal(name, `is longer than ${MAX_FILTER_LENGTH} characters`);
    query[name] = value;
  }
  const limit = get('limit');
  if (limit !== undefined) {
    if (!/^\d{1,6}$/.test(limit)) return refusal('limit', `must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${JSON.stringify(limit.slice(0, 40))}`);
    const n = Number(limit);
    if (n < 1 || n > MAX_PAGE_SIZE) return refusal('limit', `must be from 1 to ${MAX_PAGE_SIZE}, got ${n}`);
    query.limit = n;
  }
  const since = get('since');
  if (since !== undefined) {
    const at = parseSince(since);
    if (at === null) return refusal('since', `must be epoch milliseconds or an ISO 8601 date (2026-07-28T10:00:00Z), got ${JSON.stringify(since.slice(0, 40))}`);
    query.since = at;
  }
  const cursor = get('cursor');
  if (cursor !== undefined) {
    if (decodeCursor(cursor) === null) return refusal('cursor', "is not a cursor this inspector gave (a page's `next`)");
    query.cursor = cursor;
  }
  return { query };
}

/**
 * Whether `task` passes every filter of `query` (`status` included unless `ignoreStatus`).
 * `owner` matches the principal, or the session id only when `reveal` (the page proved to be an
 * operator's): a page that sees session ids shortened must not be able to probe them; `taskId`
 * likewise matches a bearer task's id only when `reveal`. Free text
 * (`q`) searches what the page is shown, for the same reason.
 *
 * @param task - the task as observed
 * @param query - the filters
 * @param reveal - whether credential-equivalent values are shown to this page in full
 * @param ignoreStatus - leave `status` out (for the counts per status)
 * @example
 * ```ts
 * const visible = tasks.filter((t) => matchesTask(t, query, false));
 * ```
 */
export function matchesTask(task: ObservedTask, query: TaskQuery, reveal: boolean, ignoreStatus = false): boolean {
  if (!ignoreStatus && query.status !== undefined && task.status !== query.status) return false;
  if (query.method !== undefined && task.method !== query.method) return false;
  if (query.label !== undefined && task.label !== query.label) return false;
  if (query.node !== undefined && task.node !== query.node) return false;
  if (query.dialect !== undefined && task.dialect !== query.dialect) return false;
  if (query.since !== undefined && task.createdAt < query.since) return false;
  // A page that sees an id shortened must not be able to probe it either.
  if (query.taskId !== undefined && (task.taskId !== query.taskId || (!reveal && bearerTask(task)))) return false;
  if (query.owner !== undefined && task.owner.principal !== query.owner && !(reveal && task.owner.session === query.owner)) return false;
  if (query.q !== undefined) {
    const shown = reveal ? task : withoutCredentials(task);
    const needle = query.q.toLowerCase();
    const fields = [shown.taskId, shown.label, shown.owner.session, shown.node, shown.statusMessage, shown.error, shown.parentId];
    if (!fields.some((f) => f !== null && f.toLowerCase().includes(needle))) return false;
  }
  return true;
}

/** Newest first; the key breaks ties, so the order is total and a cursor names one place. */
function newerFirst(a: Position, b: Position): number {
  return b.createdAt - a.createdAt || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);
}

/** Zero for every status. */
function noCounts(): Record<TaskStatus, number> {
  return Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
}

// One pass: the counts over every filter but status, and the tasks that pass them all.
function select(tasks: readonly ObservedTask[], query: TaskQuery, reveal: boolean): { counts: Record<TaskStatus, number>; matching: ObservedTask[] } {
  const counts = noCounts();
  const matching: ObservedTask[] = [];
  for (const t of tasks) {
    if (!matchesTask(t, query, reveal, true)) continue;
    counts[t.status]++;
    if (query.status === undefined || t.status === query.status) matching.push(t);
  }
  return { counts, matching };
}

/**
 * How many tasks match the query (`total`) and how many have each status among those matching
 * every filter but `status` (`counts`): what the `counts` event of a stream carries.
 *
 * @example
 * ```ts
 * const { counts, total } = countTasks(await observer.list(), query, reveal);
 * ```
 */
export function countTasks(tasks: readonly ObservedTask[], query: TaskQuery, reveal: boolean): Pick<TaskPage, 'counts' | 'total'> {
  const { counts, matching } = select(tasks, query, reveal);
  return { counts, total: matching.length };
}

/**
 * What {@link countTasks} depends on, as a string: every filter and `reveal`, not the paging
 * (`limit`, `cursor`). Streams whose keys are equal get the same counts, counted once.
 *
 * @example
 * ```ts
 * const key = countsKey(query, reveal);
 * ```
 */
export function countsKey(query: TaskQuery, reveal: boolean): string {
  return JSON.stringify([reveal, query.status ?? null, ...TEXT_FILTERS.map((f) => query[f] ?? null), query.since ?? null]);
}

/** One page of tasks as observed; the caller shapes them for the page (`listedTask`). */
export interface ObservedPage extends Omit<TaskPage, 'tasks' | 'showResults' | 'actions'> {
  readonly tasks: readonly ObservedTask[];
}

/**
 * The page of `tasks` that `query` selects: one pass to filter and count, one sort of the
 * matching tasks (newest first), and a binary search for where the cursor's page starts.
 *
 * @param tasks - every task (`observer.list()`, in any order)
 * @param query - a parsed query (its `cursor` one that {@link parseTaskQuery} accepted)
 * @param reveal - see {@link matchesTask}
 * @example
 * ```ts
 * const page = pageTasks(await observer.list(), query, reveal);
 * ```
 */
export function pageTasks(tasks: readonly ObservedTask[], query: TaskQuery, reveal: boolean): ObservedPage {
  const { counts, matching } = select(tasks, query, reveal);
  matching.sort(newerFirst);
  const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
  let start = 0;
  if (after !== null) {
    // The first task strictly after the cursor's place in the order (the cursor's task may be gone).
    let high = matching.length;
    while (start < high) {
      const mid = (start + high) >>> 1;
      if (newerFirst(matching[mid]!, after) <= 0) start = mid + 1;
      else high = mid;
    }
  }
  const limit = query.limit ?? MAX_PAGE_SIZE;
  const page = matching.slice(start, start + limit);
  const last = page.at(-1);
  const next = start + limit < matching.length && last ? encodeCursor(last) : null;
  return { tasks: page, total: matching.length, counts, next, first: after === null, limit };
}
