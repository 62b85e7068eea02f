/**
 * The inspector page's script (served as `/inspector.js`): one plain ES module, no framework, no
 * build step. It is a TypeScript string so that `tsc` emits it into `dist`; being browser code in
 * a string, it avoids backticks and template placeholders. It is long, so it is written in parts
 * (this file's core, then the `PAGE_*_SCRIPT` parts), joined into one module: the parts hold
 * function declarations only, and the start-up code runs last, once every part is defined.
 *
 * What it does: shows one page of the task list (the server pages and filters; the page keeps only
 * its rows), live from an event stream whose `snapshot` is that page (`page-list-script.ts`),
 * each subtask's row under its parent's (`page-tree-script.ts`); the URL follows the selection and
 * the filters (`/tasks/<taskId>?…`); for the selected task the lifecycle diagram and its handler
 * machine with their states highlighted, live or as at a timeline entry
 * (`page-history-script.ts`), its timeline and outcome (`page-detail-script.ts`), the input it
 * waits for (`page-inputs-script.ts`), its parent and subtasks, partial results and push
 * deliveries (`page-family-script.ts`), the operator's actions (`page-operator-script.ts`), and
 * the cluster's nodes (`page-cluster-script.ts`). Every task field is written as text (never as
 * HTML): task ids, labels, messages, questions and partial results come from requesters.
 *
 * DOM contract (kept stable for the browser tests):
 * - `table#tasks tbody tr[data-task-key][data-status]`, cells `td[data-col]` with `taskId`,
 *   `status`, `label`, `dialect`, `session`, `node`, `age`, `message`, `progress`, `subtasks`; the
 *   selected row has class `selected`. Only the current page's rows exist. The tree's and the
 *   detail's other parts: see `page-tree-script.ts` and `page-family-script.ts`.
 * - Filters (each change reconnects the stream and is kept in the URL query): `select#status-filter`
 *   (`status`: `''` and the seven statuses), `input#search` (`q`), `input#filter-method`,
 *   `#filter-label`, `#filter-node`, `#filter-owner`, `#filter-dialect`, `select#filter-since`
 *   (`since`: `''`, `5m`, `1h`, `24h`, `7d`). `#status-counts button[data-status]` chips, each
 *   with `span.n` (how many match every filter but the status; `aria-pressed="true"` on the
 *   filtered one; a click filters by it, again clears). `#notice` says what a link found.
 * - Paging: `#page-newer`, `#page-older` (disabled at either end), `#page-info` ("1–100 of 10,000"),
 *   `#counts` ("N tasks"), `#empty`.
 * - `#detail` (hidden until a task is selected; `data-mode` `live` or `history`) with
 *   `#detail-title` (the task id), `#detail-note`, `#close-detail`, `#detail-meta`, `#diagram`
 *   (the lifecycle SVG, `g[data-state="task.<status>"]` with class `current`), `#handler-figure`
 *   (hidden without a handler machine) with `#handler-diagram` (its SVG, `g[data-state].current`
 *   on its current states), `#handler-name`, `#handler-status`, `#handler-step`,
 *   `#handler-attempt`; `ol#timeline > li[data-index][data-event][data-status]` (a `task.handler`
 *   entry with `span.handler-states`, `span.step`, `span.checkpoint`; the stepped one has class
 *   `stepped`); `#history-at` (shown while stepping: `dd[data-field]` `at`, `event`, `status`,
 *   `message`, `attempt`, `node`, `handler`) with `#back-to-live`; `#outcome`.
 * - `#inputs-box` (shown in `input_required`): `ul#inputs > li[data-input-id][data-kind]`, see
 *   `page-inputs-script.ts`.
 * - `#operator` (shown when the inspector has operators): `#operator-token`, `#operator-signin`,
 *   `#operator-name`, `#operator-signout`, `#operator-error`; `#actions` with `#cancel-task` and
 *   `#action-error`, see `page-operator-script.ts`.
 * - `#show-cluster` (hidden when `/api/cluster` answers 404) and `#cluster`, see
 *   `page-cluster-script.ts`.
 * - `#live[data-connected="true"]` while the event stream is open.
 *
 * @module
 */

import { PAGE_CLUSTER_SCRIPT } from './page-cluster-script.js';
import { PAGE_DETAIL_SCRIPT } from './page-detail-script.js';
import { PAGE_FAMILY_SCRIPT } from './page-family-script.js';
import { PAGE_HISTORY_SCRIPT } from './page-history-script.js';
import { PAGE_INPUTS_SCRIPT } from './page-inputs-script.js';
import { PAGE_LIST_SCRIPT } from './page-list-script.js';
import { PAGE_OPERATOR_SCRIPT } from './page-operator-script.js';
import { PAGE_TREE_SCRIPT } from './page-tree-script.js';

const PAGE_CORE_SCRIPT = String.raw`// mcp-tasks inspector: plain ES module, no framework, no build step.
const token = new URL(import.meta.url).searchParams.get('token');
const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'unknown']);
const STATUSES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'];
const MAX_TIMELINE = 200;
const DEFAULT_PAGE_SIZE = 100;

const state = {
  // the list: the current page only
  tasks: new Map(),   // key -> ListedTask
  rows: new Map(),    // key -> <tr>
  ids: new Map(),     // owner and task id -> key (a subtask names its parent by task id)
  orphans: new Map(), // a parent's owner and task id -> keys of its subtasks listed before it
  filters: {},        // TaskQuery filters, as the URL has them
  limit: null,        // the page size asked for (the URL's limit), or null for the server's
  pageSize: DEFAULT_PAGE_SIZE,
  cursor: null,       // this page's cursor, null on the first
  back: [],           // the newer pages left by Older: { cursor, offset }
  offset: 0,          // tasks on the newer pages
  first: true,
  next: null,
  trimmed: false,     // the first page dropped rows for new ones: its next cursor is behind
  total: 0,
  counts: {},
  source: null,       // the EventSource
  showResults: false,
  actions: false,     // the inspector has operators: the Operator control is offered
  // the detail
  selected: null,     // key of the task shown, on this page or not
  current: null,      // that task as last seen
  timeline: [],
  partials: [],
  loads: 0,           // detail requests made; only the latest one is applied
  reload: false,      // another detail request is wanted once the one out is done
  loading: false,
  handlerGraph: null, // graph key of the drawn handler machine
  handler: null,      // its live position
  mode: 'live',       // or 'history' while a timeline entry is stepped to
  stepped: null,      // that entry's key
  inputsSeen: '',     // the pending input ids the question shown was read for
  operator: null,     // { token, name } once signed in
  clusterTimer: null,
};

const $ = (selector) => document.querySelector(selector);
const tbody = $('#tasks tbody');

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// The operator's token when signed in (it also grants reading, and makes the detail list what the
// operator may do), else the page's own token.
function api(path, init) {
  const bearer = state.operator ? state.operator.token : token;
  const headers = bearer ? { authorization: 'Bearer ' + bearer } : {};
  return fetch(path, Object.assign({ headers, cache: 'no-store' }, init || {}));
}

function shortId(value) {
  if (!value) return '—';
  return value.length > 13 ? value.slice(0, 8) + '…' + value.slice(-4) : value;
}

function age(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return s + 's';
  const m = Math.floor(s / 60);
  if (m < 60) return m + 'm ' + (s % 60) + 's';
  const h = Math.floor(m / 60);
  if (h < 24) return h + 'h ' + (m % 60) + 'm';
  return Math.floor(h / 24) + 'd ' + (h % 24) + 'h';
}

function clock(at) {
  const d = new Date(at);
  const pad = (n, w) => String(n).padStart(w || 2, '0');
  return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3);
}

function methodLabel(task) {
  return task.label ? task.method + ' (' + task.label + ')' : task.method;
}

function number(n) {
  return Number(n || 0).toLocaleString('en-US');
}

// ---- the table ---------------------------------------------------------------------------------

const COLUMNS = ['taskId', 'status', 'label', 'dialect', 'session', 'node', 'age', 'message', 'progress', 'subtasks'];

function cellText(task, column) {
  switch (column) {
    case 'taskId': return task.taskId;
    case 'status': return task.status;
    case 'label': return methodLabel(task);
    case 'dialect': return task.dialect;
    case 'session': return shortId(task.owner.session);
    case 'node': return task.node || '—';
    case 'age': return age(Date.now() - task.createdAt);
    case 'message': return task.statusMessage || task.error || '';
    case 'progress': return task.progressText || '';
  }
  return '';
}

function newRow(task) {
  const tr = document.createElement('tr');
  tr.dataset.taskKey = task.key;
  for (const column of COLUMNS) {
    const td = document.createElement('td');
    td.dataset.col = column;
    tr.appendChild(td);
  }
  tr.addEventListener('click', () => select(task.key));
  placeRow(tr, task);
  state.rows.set(task.key, tr);
  return tr;
}

function renderRow(task) {
  const tr = state.rows.get(task.key) || newRow(task);
  tr.dataset.status = task.status;
  for (const td of tr.cells) td.textContent = cellText(task, td.dataset.col);
  tr.cells[4].title = task.owner.session || '';
  tr.cells[4].title += task.owner.principal ? ' (principal ' + task.owner.principal + ')' : '';
  renderSubtaskCell(tr, task);
  tr.classList.toggle('selected', task.key === state.selected);
}

// A row of the page, new or changed; false when the page has a newer version of the task.
function upsertRow(task) {
  const known = state.tasks.get(task.key);
  // An event queued before the snapshot may be older than it: never step back.
  if (known && known.updatedAt > task.updatedAt) return false;
  state.tasks.set(task.key, task);
  state.ids.set(identity(task.owner, task.taskId), task.key);
  renderRow(task);
  renderParentOf(task);
  return true;
}

function removeRow(key) {
  forgetRow(key, state.tasks.get(key));
  state.tasks.delete(key);
  const tr = state.rows.get(key);
  if (tr) tr.remove();
  state.rows.delete(key);
}

function clearRows() {
  tbody.replaceChildren();
  state.tasks.clear();
  state.rows.clear();
  state.ids.clear();
  state.orphans.clear();
}

// The first page takes new tasks: past its size, its oldest rows leave.
function trimPage() {
  while (state.tasks.size > state.pageSize) {
    let oldest = null;
    for (const task of state.tasks.values()) if (!oldest || task.createdAt < oldest.createdAt) oldest = task;
    removeRow(oldest.key);
    state.trimmed = true;
  }
}
`;

const PAGE_START_SCRIPT = String.raw`
// ---- start ---------------------------------------------------------------------------------------

setInterval(() => {
  const now = Date.now();
  for (const [key, tr] of state.rows) {
    const task = state.tasks.get(key);
    if (task) tr.cells[6].textContent = age(now - task.createdAt);
  }
}, 1000);
startList();
startDetail();
startOperator();
startCluster();
`;

/**
 * The script.
 *
 * @example
 * ```ts
 * res.writeHead(200, { 'content-type': 'text/javascript' }).end(PAGE_SCRIPT);
 * ```
 */
export const PAGE_SCRIPT =
  PAGE_CORE_SCRIPT +
  PAGE_TREE_SCRIPT +
  PAGE_LIST_SCRIPT +
  PAGE_DETAIL_SCRIPT +
  PAGE_HISTORY_SCRIPT +
  PAGE_INPUTS_SCRIPT +
  PAGE_FAMILY_SCRIPT +
  PAGE_OPERATOR_SCRIPT +
  PAGE_CLUSTER_SCRIPT +
  PAGE_START_SCRIPT;
