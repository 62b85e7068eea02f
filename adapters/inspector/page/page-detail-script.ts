/**
 * The detail of the selected task on the inspector page, appended to its script
 * (`page-script.ts`): selecting (from a row, a link, or the address), reading the detail
 * (`/api/tasks/:key`) and following the task live, its metadata, outcome and timeline. The task
 * need not be on the list's current page: a link may name any. Function declarations only, as in
 * `page-tree-script.ts`.
 *
 * @module
 */

/**
 * The part of the script.
 *
 * @example
 * ```ts
 * const script = PAGE_CORE_SCRIPT + PAGE_LIST_SCRIPT + PAGE_DETAIL_SCRIPT;
 * ```
 */
export const PAGE_DETAIL_SCRIPT = String.raw`
// ---- the detail ----------------------------------------------------------------------------------

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
  return e.at + '|' + e.event + '|' + e.status + '|' + (e.message || '') + '|' + (e.handler ? e.handler.step : '');
}

function renderTimeline() {
  const list = $('#timeline');
  list.replaceChildren();
  state.timeline.forEach((e, index) => {
    const li = el('li');
    li.dataset.index = String(index);
    li.dataset.status = e.status;
    li.dataset.event = e.event;
    if (e.attempt) li.dataset.attempt = String(e.attempt);
    const time = el('time', '', clock(e.at));
    time.dateTime = new Date(e.at).toISOString();
    li.append(time, ' ', el('span', 'event', e.event), ' → ', el('span', 'status', e.status));
    if (e.handler) {
      li.append(' ', el('span', 'handler-states', e.handler.states.join(', ')), ' ', el('span', 'step', 'step ' + e.handler.step));
      if (e.handler.checkpoint) li.append(' ', el('span', 'checkpoint', 'checkpoint'));
    }
    if (e.attempt > 1) li.append(' ', el('span', 'attempt', 'attempt ' + e.attempt));
    if (e.node) li.append(' ', el('span', 'node', 'on ' + e.node));
    if (e.message) li.append(' ', el('span', 'message', '“' + e.message + '”'));
    if (state.stepped === entryKey(e)) li.classList.add('stepped');
    li.addEventListener('click', () => stepTo(index));
    list.append(li);
  });
}

function mergeTimeline(entries) {
  const seen = new Set(state.timeline.map(entryKey));
  for (const e of entries) if (!seen.has(entryKey(e))) state.timeline.push(e);
  state.timeline.sort((a, b) => a.at - b.at);
  if (state.timeline.length > MAX_TIMELINE) state.timeline.splice(1, state.timeline.length - MAX_TIMELINE);
  renderTimeline();
}

// One detail request at a time; a request wanted meanwhile is made once it is done.
function loadDetail(key) {
  if (state.loading) { state.reload = true; return; }
  state.loading = true;
  readDetail(key).catch(() => undefined).finally(() => {
    state.loading = false;
    if (!state.reload) return;
    state.reload = false;
    if (state.selected) loadDetail(state.selected);
  });
}

async function readDetail(key) {
  const ticket = ++state.loads;
  const res = await api('/api/tasks/' + encodeURIComponent(key));
  if (ticket !== state.loads || key !== state.selected) return;
  if (!res.ok) { $('#detail-note').textContent = res.status === 404 ? '(removed)' : '(HTTP ' + res.status + ')'; return; }
  const detail = await res.json();
  if (ticket !== state.loads || key !== state.selected) return;
  const task = fresher(state.current, detail.task);
  state.current = task;
  if (state.tasks.has(key)) upsertRow(detail.task);
  renderMeta(task);
  liveStatus(task.status);
  mergeTimeline(detail.timeline);
  renderOutcome(task, detail.outcome);
  renderHandler(detail.handler);
  renderInputs(detail.inputs || [], task);
  renderActions(detail.actions || []);
  state.partials = detail.task.partials || [];
  renderFamily(task);
  renderPartials(task);
  renderDeliveries(detail.deliveries);
  if (state.mode === 'history') restep();
}

function fresher(known, task) {
  return known && known.key === task.key && known.updatedAt > task.updatedAt ? known : task;
}

// Shows the task with key 'key' (from its row, a link, or the address); 'push': the URL follows.
function select(key, known, push) {
  const task = known || state.tasks.get(key) || (state.current && state.current.key === key ? state.current : null);
  if (state.selected !== key) {
    state.timeline = [];
    state.partials = [];
    state.inputsSeen = '';
    goLive();
    renderHandler(null);
    renderInputs([], null);
    renderActions([]);
    renderDeliveries([]);
  }
  state.selected = key;
  state.current = task;
  for (const [k, tr] of state.rows) tr.classList.toggle('selected', k === key);
  $('#detail').hidden = false;
  $('#detail-note').textContent = '';
  if (task) {
    renderMeta(task);
    liveStatus(task.status);
    renderTimeline();
    renderOutcome(task, null);
    renderFamily(task);
    renderPartials(task);
    if (push !== false) pushUrl();
  }
  loadDetail(key);
}

function deselect() {
  state.selected = null;
  state.current = null;
  state.loads++;
  goLive();
  for (const tr of state.rows.values()) tr.classList.remove('selected');
  $('#detail').hidden = true;
}

// The selected task changed (its upsert): the detail follows, and reads the detail again for
// what the stream does not carry (the result, the question, the handler's drawing).
function onSelectedChange(task, entry) {
  const before = state.current;
  if (before && before.updatedAt > task.updatedAt) return;
  state.current = task;
  renderMeta(task);
  liveStatus(task.status);
  if (entry) mergeTimeline([entry]);
  renderOutcome(task, null);
  renderFamily(task);
  renderPartials(task);
  refreshPartials(task);
  let again = false;
  if (task.handler && !followHandler(task.handler, task)) again = true;
  if (task.pendingInputs.join(',') !== state.inputsSeen) again = true;
  // Ended: the result (when shown), the handler's last state and the actions left.
  if (TERMINAL.has(task.status) && (!before || !TERMINAL.has(before.status) || before.hasResult !== task.hasResult)) again = true;
  if (again) loadDetail(task.key);
}

async function loadDiagram() {
  const res = await api('/api/diagram.svg');
  if (!res.ok) return;
  $('#diagram').innerHTML = await res.text(); // drawn by the server from the lifecycle machine
  if (state.current) liveStatus(state.current.status);
}

function startDetail() {
  $('#close-detail').addEventListener('click', () => {
    deselect();
    notice('');
    if (state.filters.taskId) {
      const filters = Object.assign({}, state.filters);
      delete filters.taskId;
      setFilters(filters);
    }
    pushUrl();
  });
  $('#back-to-live').addEventListener('click', backToLive);
  document.addEventListener('keydown', onStepKey);
  loadDiagram().catch(() => undefined);
}
`;
