/**
 * The inspector page's script (served as `/inspector.js`): one plain ES module, no framework, no
 * build step. It is a TypeScript string so that `tsc` emits it into `dist`; being browser code in
 * a string, it avoids backticks and template placeholders.
 *
 * What it does: keeps one row per task from the event stream (a `snapshot`, then `upsert`,
 * `removed`, `handler` events), each subtask's row under its parent's (`page-tree-script.ts`),
 * filters rows by status and text, ticks the ages every second, and for the selected task shows
 * the lifecycle diagram with its state highlighted, its handler machine's diagram when there is
 * one, its timeline, its outcome, its parent and subtasks, partial results and push deliveries
 * (`page-family-script.ts`). Every task field is written as text (never as HTML): task ids,
 * labels, messages and partial results come from requesters.
 *
 * DOM contract (kept stable for the browser test):
 * - `table#tasks tbody tr[data-task-key][data-status]`, cells `td[data-col]` with `taskId`,
 *   `status`, `label`, `dialect`, `session`, `node`, `age`, `message`, `progress`, `subtasks`; the selected
 *   row has class `selected`; rows filtered out have the `hidden` attribute. The tree's and the
 *   detail's other parts: see `page-tree-script.ts` and `page-family-script.ts`.
 * - `select#status-filter` (values `''` and the seven statuses), `input#search`.
 * - `#detail` (hidden until a row is selected) with `#detail-title` (the task id), `#diagram`
 *   (the lifecycle SVG, `g[data-state="task.<status>"]` with class `current`), `#handler-diagram`
 *   (the handler machine's SVG, same structure, empty without one), `ol#timeline >
 *   li[data-status][data-event]`, `#outcome`.
 * - `#live[data-connected="true"]` while the event stream is open.
 *
 * @module
 */

import { PAGE_FAMILY_SCRIPT } from './page-family-script.js';
import { PAGE_TREE_SCRIPT } from './page-tree-script.js';

/**
 * The script.
 *
 * @example
 * ```ts
 * res.writeHead(200, { 'content-type': 'text/javascript' }).end(PAGE_SCRIPT);
 * ```
 */
export const PAGE_SCRIPT = String.raw`// mcp-tasks inspector: plain ES module, no framework, no build step.
const token = new URL(import.meta.url).searchParams.get('token');
const authHeaders = token ? { authorization: 'Bearer ' + token } : {};
const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'unknown']);
const MAX_TIMELINE = 200;

const state = {
  tasks: new Map(),   // key -> ObservedTask
  rows: new Map(),    // key -> <tr>
  selected: null,     // key
  showResults: false,
  timeline: [],       // entries of the selected task
  handlerMachine: null,
  loads: 0,           // detail requests made; only the latest one is applied
  ids: new Map(),     // owner and task id -> key (a subtask names its parent by task id)
  orphans: new Map(), // a parent's owner and task id -> keys of its subtasks listed before it
  partials: [],       // partial results of the selected task, as its detail gave them
  refreshing: false,  // a detail request for new partial results is out
  refreshAgain: false,
};

const $ = (selector) => document.querySelector(selector);
const tbody = $('#tasks tbody');
const filter = $('#status-filter');
const search = $('#search');

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function api(path) {
  return fetch(path, { headers: authHeaders, cache: 'no-store' });
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

function matches(task) {
  if (filter.value && task.status !== filter.value) return false;
  const needle = search.value.trim().toLowerCase();
  if (!needle) return true;
  const hay = [task.taskId, task.label, task.owner.session, task.node, task.statusMessage, task.error, task.parentId];
  return hay.some((v) => typeof v === 'string' && v.toLowerCase().includes(needle));
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
  tr.hidden = !matches(task);
  tr.classList.toggle('selected', task.key === state.selected);
}

function refreshCounts() {
  let shown = 0;
  for (const tr of state.rows.values()) if (!tr.hidden) shown++;
  $('#counts').textContent = state.tasks.size + ' tasks' + (shown === state.tasks.size ? '' : ', ' + shown + ' shown');
  $('#empty').hidden = state.tasks.size > 0;
}

function applyFilter() {
  for (const [key, tr] of state.rows) tr.hidden = !matches(state.tasks.get(key));
  refreshCounts();
}

function upsert(task) {
  const known = state.tasks.get(task.key);
  // An event queued before the snapshot may be older than it: never step back.
  if (known && known.updatedAt > task.updatedAt) return false;
  state.tasks.set(task.key, task);
  state.ids.set(identity(task.owner, task.taskId), task.key);
  renderRow(task);
  renderParentOf(task);
  return true;
}

function remove(key) {
  forgetRow(key, state.tasks.get(key));
  state.tasks.delete(key);
  const tr = state.rows.get(key);
  if (tr) tr.remove();
  state.rows.delete(key);
  if (key === state.selected) $('#detail-note').textContent = '(removed)';
}

// ---- the detail --------------------------------------------------------------------------------

function highlight(container, ids) {
  const svg = container.querySelector('svg');
  if (!svg) return;
  for (const g of svg.querySelectorAll('g[data-state].current')) g.classList.remove('current');
  for (const id of ids) {
    const g = svg.querySelector('g[data-state="' + CSS.escape(id) + '"]');
    if (g) g.classList.add('current');
  }
}

function highlightStatus(status) {
  const diagram = $('#diagram');
  const svg = diagram.querySelector('svg');
  const machine = (svg && svg.dataset.machine) || 'task';
  highlight(diagram, [machine + '.' + status]);
}

function renderMeta(task) {
  $('#detail-title').textContent = task.taskId;
  const meta = $('#detail-meta');
  meta.replaceChildren();
  const rows = [
    ['status', task.status], ['method (tool)', methodLabel(task)], ['dialect', task.dialect],
    ['session', task.owner.session || '—'], ['principal', task.owner.principal || '—'], ['node', task.node || '—'],
    ['created', new Date(task.createdAt).toISOString()], ['updated', new Date(task.updatedAt).toISOString()],
  ];
  if (task.attempt > 1) rows.push(['attempt', String(task.attempt) + ' (resumed or re-run after a lost worker)']);
  if (task.checkpoint) rows.push(['checkpoint', '#' + task.checkpoint.seq + (task.checkpoint.label ? ' ' + task.checkpoint.label : '') + ' at ' + new Date(task.checkpoint.at).toISOString()]);
  if (task.progressText) rows.push(['progress', task.progressText]);
  if (task.pendingInputs.length > 0) rows.push(['waiting on', task.pendingInputs.join(', ')]);
  if (task.expiresAt) rows.push(['expires', new Date(task.expiresAt).toISOString()]);
  for (const [name, value] of rows) meta.append(el('dt', '', name), el('dd', '', value));
}

function renderOutcome(task, outcome) {
  const box = $('#outcome');
  box.replaceChildren();
  if (!TERMINAL.has(task.status)) {
    box.append(el('p', 'muted', 'Not ended: ' + task.status + (task.statusMessage ? ' (' + task.statusMessage + ')' : '') + (task.progressText ? ', progress ' + task.progressText : '') + '.'));
    return;
  }
  const dl = el('dl');
  const add = (name, value, className) => dl.append(el('dt', '', name), el('dd', className || '', value));
  add('status', task.status);
  if (task.error) add('error', task.error, 'error');
  if (task.statusMessage) add('status message', task.statusMessage);
  if (outcome && outcome.resultShown) {
    const dd = el('dd');
    const text = JSON.stringify(outcome.result, null, 2) || 'null';
    dd.append(el('pre', '', text.length > 20000 ? text.slice(0, 20000) + '\n… (' + text.length + ' characters)' : text));
    dl.append(el('dt', '', 'result'), dd);
  } else if (task.hasResult) {
    add('result', state.showResults ? 'stored' : 'stored (hidden: results are not enabled on this inspector)', 'muted');
  } else {
    add('result', 'none', 'muted');
  }
  box.append(dl);
}

function entryKey(e) {
  return e.at + '|' + e.event + '|' + e.status + '|' + (e.message || '');
}

function renderTimeline() {
  const list = $('#timeline');
  list.replaceChildren();
  for (const e of state.timeline) {
    const li = el('li');
    li.dataset.status = e.status;
    li.dataset.event = e.event;
    const time = el('time', '', clock(e.at));
    time.dateTime = new Date(e.at).toISOString();
    li.append(time, ' ', el('span', 'event', e.event), ' → ', el('span', 'status', e.status));
    if (e.node) li.append(' ', el('span', 'node', 'on ' + e.node));
    if (e.message) li.append(' ', el('span', 'message', '“' + e.message + '”'));
    list.append(li);
  }
}

function mergeTimeline(entries) {
  const seen = new Set(state.timeline.map(entryKey));
  for (const e of entries) if (!seen.has(entryKey(e))) state.timeline.push(e);
  state.timeline.sort((a, b) => a.at - b.at);
  if (state.timeline.length > MAX_TIMELINE) state.timeline.splice(1, state.timeline.length - MAX_TIMELINE);
  renderTimeline();
}

function renderHandler(handler) {
  const figure = $('#handler-figure');
  const box = $('#handler-diagram');
  if (!handler) {
    figure.hidden = true;
    box.replaceChildren();
    state.handlerMachine = null;
    return;
  }
  if (state.handlerMachine !== handler.machine || !box.querySelector('svg')) {
    box.innerHTML = handler.svg; // the server's drawing of a machine definition, not requester data
    state.handlerMachine = handler.machine;
  }
  figure.hidden = false;
  $('#handler-name').textContent = handler.machine;
  $('#handler-status').textContent = handler.status === 'active' ? '' : '(' + handler.status + ')';
  highlight(box, handler.states);
}

async function loadDetail(key) {
  const ticket = ++state.loads;
  const res = await api('/api/tasks/' + encodeURIComponent(key));
  if (ticket !== state.loads || key !== state.selected) return;
  if (!res.ok) { $('#detail-note').textContent = '(removed)'; return; }
  const detail = await res.json();
  if (ticket !== state.loads || key !== state.selected) return;
  upsert(detail.task);
  const task = state.tasks.get(key) || detail.task;
  renderMeta(task);
  highlightStatus(task.status);
  mergeTimeline(detail.timeline);
  renderOutcome(task, detail.outcome);
  renderHandler(detail.handler);
  state.partials = detail.task.partials || [];
  renderFamily(task);
  renderPartials(task);
  renderDeliveries(detail.deliveries);
}

function select(key) {
  const task = state.tasks.get(key);
  if (!task) return;
  if (state.selected !== key) {
    state.timeline = [];
    state.partials = [];
    renderHandler(null);
    renderDeliveries([]);
  }
  state.selected = key;
  for (const [k, tr] of state.rows) tr.classList.toggle('selected', k === key);
  $('#detail').hidden = false;
  $('#detail-note').textContent = '';
  renderMeta(task);
  highlightStatus(task.status);
  renderTimeline();
  renderOutcome(task, null);
  renderFamily(task);
  renderPartials(task);
  loadDetail(key).catch(() => undefined);
}

// ---- live updates --------------------------------------------------------------------------------

function onUpsert(data) {
  const task = data.task;
  const before = state.tasks.get(task.key);
  if (!upsert(task)) return;
  refreshCounts();
  if (task.key !== state.selected) return;
  renderMeta(task);
  highlightStatus(task.status);
  if (data.entry) mergeTimeline([data.entry]);
  renderOutcome(task, null);
  renderFamily(task);
  renderPartials(task);
  refreshPartials(task);
  // Ended: read the detail again for the result (when shown) and the handler's last state.
  if (TERMINAL.has(task.status) && (!before || !TERMINAL.has(before.status) || before.hasResult !== task.hasResult)) {
    loadDetail(task.key).catch(() => undefined);
  }
}

function onSnapshot(data) {
  state.showResults = Boolean(data.showResults);
  const keys = new Set(data.tasks.map((t) => t.key));
  for (const key of [...state.tasks.keys()]) if (!keys.has(key)) remove(key);
  for (const task of data.tasks) upsert(task);
  refreshCounts();
  if (state.selected && state.tasks.has(state.selected)) loadDetail(state.selected).catch(() => undefined);
}

function onHandler(data) {
  if (data.key !== state.selected) return;
  if (state.handlerMachine === data.machine) {
    highlight($('#handler-diagram'), data.states);
    $('#handler-status').textContent = data.status === 'active' ? '' : '(' + data.status + ')';
  } else {
    loadDetail(data.key).catch(() => undefined);
  }
}

function connect() {
  const live = $('#live');
  const url = '/api/events' + (token ? '?token=' + encodeURIComponent(token) : '');
  const source = new EventSource(url);
  const setLive = (on) => {
    live.dataset.connected = on ? 'true' : 'false';
    live.textContent = on ? 'live' : 'reconnecting…';
  };
  source.addEventListener('open', () => setLive(true));
  // EventSource reconnects by itself; the next snapshot brings the page up to date.
  source.addEventListener('error', () => setLive(false));
  const on = (name, handle) => source.addEventListener(name, (e) => handle(JSON.parse(e.data)));
  on('snapshot', onSnapshot);
  on('upsert', onUpsert);
  on('removed', (data) => { remove(data.key); refreshCounts(); });
  on('handler', onHandler);
}

async function loadDiagram() {
  const res = await api('/api/diagram.svg');
  if (!res.ok) return;
  $('#diagram').innerHTML = await res.text(); // drawn by the server from the lifecycle machine
  if (state.selected && state.tasks.has(state.selected)) highlightStatus(state.tasks.get(state.selected).status);
}

filter.addEventListener('change', applyFilter);
search.addEventListener('input', applyFilter);
setInterval(() => {
  const now = Date.now();
  for (const [key, tr] of state.rows) {
    const task = state.tasks.get(key);
    if (task) tr.cells[6].textContent = age(now - task.createdAt);
  }
}, 1000);
refreshCounts();
loadDiagram().catch(() => undefined);
connect();
` + PAGE_TREE_SCRIPT + PAGE_FAMILY_SCRIPT;
