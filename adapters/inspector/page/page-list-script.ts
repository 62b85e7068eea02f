/**
 * The task list of the inspector page, appended to its script (`page-script.ts`): the filters and
 * the page of the list as the server serves them (`/api/events?<TaskQuery>`, whose `snapshot` is
 * the page), the status counts, paging with Newer/Older, the URL (`/tasks/<taskId>?key=…&token=…`
 * plus the filters) and back/forward, and opening a task from a link. Function declarations only,
 * as in `page-tree-script.ts`.
 *
 * The page keeps only its current page's rows: an `upsert` that matches the filters updates its
 * row, or on the first page joins it (its oldest row leaving past the page size); one that does
 * not match removes its row; the server decides which match.
 *
 * @module
 */

/**
 * The part of the script.
 *
 * @example
 * ```ts
 * const script = PAGE_CORE_SCRIPT + PAGE_TREE_SCRIPT + PAGE_LIST_SCRIPT;
 * ```
 */
export const PAGE_LIST_SCRIPT = String.raw`
// ---- the list: filters, paging, counts, the stream, the URL ------------------------------------

// Each filter: its query parameter and its input.
const FILTER_INPUTS = { status: '#status-filter', q: '#search', method: '#filter-method', label: '#filter-label', node: '#filter-node', owner: '#filter-owner', dialect: '#filter-dialect', since: '#filter-since' };
const SINCE_MS = { '5m': 300000, '1h': 3600000, '24h': 86400000, '7d': 604800000 };
let filterTimer = null;

function filtersOfInputs() {
  const filters = {};
  for (const [name, selector] of Object.entries(FILTER_INPUTS)) {
    const value = $(selector).value.trim();
    if (value) filters[name] = value;
  }
  if (state.filters.taskId) filters.taskId = state.filters.taskId;
  return filters;
}

function showFilters() {
  for (const [name, selector] of Object.entries(FILTER_INPUTS)) {
    const input = $(selector);
    const value = state.filters[name] || '';
    // A since of a link may be a date rather than one of the choices: offer it as it is.
    if (input.tagName === 'SELECT' && value && ![...input.options].some((o) => o.value === value)) input.append(new Option(value, value));
    input.value = value;
  }
}

function sameFilters(a, b) {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const name of names) if ((a[name] || '') !== (b[name] || '')) return false;
  return true;
}

// The list's query: the filters (a relative since as a time), the page size and cursor.
function listQuery() {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(state.filters)) {
    if (!value) continue;
    query.set(name, name === 'since' && SINCE_MS[value] ? String(Date.now() - SINCE_MS[value]) : value);
  }
  if (state.limit) query.set('limit', state.limit);
  if (state.cursor) query.set('cursor', state.cursor);
  return query;
}

// Whether a link to the task needs its key: its id is shown shortened (an anonymous task's, on a
// page that needs no token: the server finds no task by it), or another listed task has the same
// id (ids are unique per owner only).
function keyNeeded(task) {
  if (state.filters.taskId || task.taskId.endsWith('\u2026')) return true;
  for (const other of state.tasks.values()) if (other.taskId === task.taskId && other.key !== task.key) return true;
  return false;
}

function pageUrl() {
  const query = new URLSearchParams();
  if (token) query.set('token', token);
  const task = state.selected ? state.current : null;
  if (task && keyNeeded(task)) query.set('key', task.key);
  for (const [name, value] of Object.entries(state.filters)) if (value && name !== 'taskId') query.set(name, value);
  if (state.limit) query.set('limit', state.limit);
  const path = task ? '/tasks/' + encodeURIComponent(task.taskId) : '/';
  const text = query.toString();
  return path + (text ? '?' + text : '');
}

function pushUrl() {
  const url = pageUrl();
  if (url !== location.pathname + location.search) history.pushState(null, '', url);
}

function replaceUrl() {
  history.replaceState(null, '', pageUrl());
}

// What the address asks for: the filters, and a task by id (and key, when ids collide).
function readLocation() {
  const params = new URLSearchParams(location.search);
  const filters = {};
  for (const name of Object.keys(FILTER_INPUTS)) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  const match = /^\/tasks\/([^/]+)$/.exec(location.pathname);
  let taskId = null;
  if (match) {
    try { taskId = decodeURIComponent(match[1]); } catch { taskId = match[1]; }
  }
  return { filters, limit: params.get('limit'), taskId, key: params.get('key') };
}

function setFilters(filters) {
  state.filters = filters;
  state.cursor = null;
  state.back = [];
  state.offset = 0;
  showFilters();
  connect();
}

function onFilterChange(delay) {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(() => {
    const filters = filtersOfInputs();
    if (sameFilters(filters, state.filters)) return;
    setFilters(filters);
    replaceUrl();
  }, delay);
}

function notice(text) {
  const box = $('#notice');
  box.textContent = text || '';
  box.hidden = !text;
}

// ---- the stream ----------------------------------------------------------------------------------

function setLive(text, on) {
  const live = $('#live');
  live.dataset.connected = on ? 'true' : 'false';
  live.textContent = text;
}

function connect() {
  if (state.source) state.source.close();
  const query = listQuery();
  if (token) query.set('token', token);
  const source = new EventSource('/api/events?' + query.toString());
  state.source = source;
  setLive('connecting…', false);
  source.addEventListener('open', () => setLive('live', true));
  // EventSource reconnects by itself (the next snapshot brings the page up to date), unless the
  // server refused the stream: then say why.
  source.addEventListener('error', () => {
    if (source !== state.source) return;
    if (source.readyState !== EventSource.CLOSED) return setLive('reconnecting…', false);
    setLive('disconnected', false);
    explainRefusal(source).catch(() => undefined);
  });
  const on = (name, handle) => source.addEventListener(name, (e) => { if (source === state.source) handle(JSON.parse(e.data)); });
  on('snapshot', onSnapshot);
  on('upsert', onUpsert);
  on('removed', onRemoved);
  on('counts', onCounts);
}

async function explainRefusal(refused) {
  const res = await api('/api/tasks?' + listQuery().toString());
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    return notice('The list could not be read: ' + (body.error || 'HTTP ' + res.status));
  }
  // The list reads, so the stream itself was refused (too many open streams, the inspector
  // stopping): ask again to read why, say it, and open the stream again after Retry-After.
  const query = listQuery();
  if (token) query.set('token', token);
  const probe = new AbortController();
  const again = await fetch('/api/events?' + query.toString(), { signal: probe.signal, cache: 'no-store' });
  if (refused !== state.source) return probe.abort();
  if (again.ok) {
    probe.abort();
    return connect();
  }
  const body = await again.json().catch(() => ({}));
  const wait = Math.min(60, Math.max(1, Number(again.headers.get('retry-after')) || 5));
  notice('Live updates paused: ' + (body.error || 'HTTP ' + again.status) + '. Trying again in ' + wait + ' s.');
  setTimeout(() => {
    if (refused !== state.source) return;
    notice('');
    connect();
  }, wait * 1000);
}

function onSnapshot(page) {
  state.showResults = Boolean(page.showResults);
  state.first = Boolean(page.first);
  state.next = page.next || null;
  state.trimmed = false;
  state.total = page.total;
  state.counts = page.counts || {};
  if (typeof page.limit === 'number') state.pageSize = page.limit;
  else if (state.limit) state.pageSize = Number(state.limit);
  clearRows();
  for (const task of page.tasks) upsertRow(task);
  renderListInfo();
  offerOperator(Boolean(page.actions));
  if (state.selected) loadDetail(state.selected);
}

function onUpsert(data) {
  const task = data.task;
  const listed = state.tasks.has(task.key);
  if (!data.matches) {
    if (listed) removeRow(task.key);
  } else if (listed) {
    upsertRow(task);
  } else if (state.first) {
    upsertRow(task);
    trimPage();
  }
  if (listed || data.matches) renderListInfo();
  if (task.key === state.selected) onSelectedChange(task, data.entry);
}

function onRemoved(data) {
  if (state.tasks.has(data.key)) removeRow(data.key);
  renderListInfo();
  if (data.key === state.selected) $('#detail-note').textContent = '(removed)';
}

function onCounts(data) {
  state.counts = data.counts || {};
  state.total = data.total;
  renderListInfo();
}

// ---- counts and paging ---------------------------------------------------------------------------

function renderListInfo() {
  const shown = state.tasks.size;
  $('#counts').textContent = number(state.total) + ' task' + (state.total === 1 ? '' : 's');
  $('#page-info').textContent = shown === 0 ? '0 of ' + number(state.total) : number(state.offset + 1) + '–' + number(state.offset + shown) + ' of ' + number(state.total);
  $('#page-newer').disabled = state.first && state.back.length === 0;
  $('#page-older').disabled = !(state.next || (state.trimmed && state.total > shown));
  const filtered = Object.values(state.filters).some(Boolean);
  $('#empty').hidden = shown > 0;
  $('#empty').textContent = filtered ? 'No task matches these filters.' : 'No tasks yet. They appear here as requesters create them.';
  for (const chip of document.querySelectorAll('#status-counts [data-status]')) {
    chip.querySelector('.n').textContent = number(state.counts[chip.dataset.status]);
    chip.setAttribute('aria-pressed', String(state.filters.status === chip.dataset.status));
  }
}

async function pageOlder() {
  let next = state.next;
  // The first page took new tasks since it came: its own next cursor skips the rows it dropped.
  if (state.first && state.trimmed) {
    const res = await api('/api/tasks?' + listQuery().toString());
    if (!res.ok) return;
    next = (await res.json()).next;
  }
  if (!next) return;
  state.back.push({ cursor: state.cursor, offset: state.offset });
  state.offset += state.tasks.size;
  state.cursor = next;
  connect();
}

function pageNewer() {
  const page = state.back.pop() || { cursor: null, offset: 0 };
  state.cursor = page.cursor;
  state.offset = page.offset;
  connect();
}

// ---- links ---------------------------------------------------------------------------------------

// Opens what the address names: a task by id (its key picks one when several share the id).
async function openLocation() {
  const at = readLocation();
  state.limit = at.limit;
  const filters = at.filters;
  if (at.taskId === null) {
    notice('');
    if (!sameFilters(filters, state.filters)) setFilters(filters);
    deselect();
    return;
  }
  if (state.current && state.current.taskId === at.taskId && (!at.key || at.key === state.selected)) {
    if (!sameFilters(Object.assign({}, filters, state.filters.taskId ? { taskId: state.filters.taskId } : {}), state.filters)) setFilters(filters);
    return;
  }
  // The key names one task: asked for directly (the id may be one the page sees only shortened).
  const res = at.key
    ? await api('/api/tasks/' + encodeURIComponent(at.key))
    : await api('/api/tasks?' + new URLSearchParams({ taskId: at.taskId, limit: '500' }).toString());
  const found = !res.ok ? [] : at.key ? [(await res.json()).task] : (await res.json()).tasks;
  const chosen = found.length === 1 ? found[0] : null;
  if (chosen) {
    notice('');
    if (!sameFilters(filters, state.filters)) setFilters(filters);
    select(chosen.key, chosen, false);
  } else if (found.length > 1) {
    notice(found.length + ' tasks (of different owners) have the id ' + at.taskId + ': pick one.');
    deselect();
    setFilters(Object.assign({}, filters, { taskId: at.taskId }));
  } else {
    notice('No task with the id ' + at.taskId + (res.ok ? '' : ' could be read (HTTP ' + res.status + ')') + '.');
    deselect();
    if (!sameFilters(filters, state.filters)) setFilters(filters);
  }
}

function startList() {
  const at = readLocation();
  state.filters = at.filters;
  state.limit = at.limit;
  showFilters();
  for (const selector of Object.values(FILTER_INPUTS)) {
    const input = $(selector);
    input.addEventListener(input.tagName === 'SELECT' ? 'change' : 'input', () => onFilterChange(input.tagName === 'SELECT' ? 0 : 300));
  }
  for (const chip of document.querySelectorAll('#status-counts [data-status]')) {
    chip.addEventListener('click', () => {
      $('#status-filter').value = state.filters.status === chip.dataset.status ? '' : chip.dataset.status;
      onFilterChange(0);
    });
  }
  $('#page-older').addEventListener('click', () => { pageOlder().catch(() => undefined); });
  $('#page-newer').addEventListener('click', pageNewer);
  $('#home').href = token ? '/?token=' + encodeURIComponent(token) : '/';
  window.addEventListener('popstate', () => { openLocation().catch(() => undefined); });
  renderListInfo();
  connect();
  if (at.taskId !== null) openLocation().catch(() => undefined);
}
`;
