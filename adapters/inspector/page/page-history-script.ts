/**
 * The two diagrams of the selected task on the inspector page, appended to its script
 * (`page-script.ts`): the lifecycle and the handler's own machine (`machineHandler`, drawn by the
 * server from the graph any node shared), their current states highlighted live, or, while a
 * timeline entry is stepped to, as they were at that entry: the lifecycle at its status, the
 * handler at the latest `task.handler` entry up to it. Function declarations only, as in
 * `page-tree-script.ts`.
 *
 * DOM contract (see `page-script.ts` for the rest): `#detail[data-mode="live"|"history"]`;
 * `ol#timeline > li.stepped`; `#history-at` (hidden live) with `dd[data-field]` and
 * `#back-to-live`; ← and → step while stepping.
 *
 * @module
 */

/**
 * The part of the script.
 *
 * @example
 * ```ts
 * const script = PAGE_CORE_SCRIPT + PAGE_DETAIL_SCRIPT + PAGE_HISTORY_SCRIPT;
 * ```
 */
export const PAGE_HISTORY_SCRIPT = String.raw`
// ---- the diagrams, live and as at a timeline entry ------------------------------------------------

function highlight(container, ids) {
  const svg = container.querySelector('svg');
  if (!svg) return;
  for (const g of svg.querySelectorAll('g[data-state].current')) g.classList.remove('current');
  for (const id of ids) {
    const g = svg.querySelector('g[data-state="' + CSS.escape(id) + '"]');
    if (g) g.classList.add('current');
  }
}

function drawStatus(status) {
  const diagram = $('#diagram');
  const svg = diagram.querySelector('svg');
  const machine = (svg && svg.dataset.machine) || 'task';
  highlight(diagram, [machine + '.' + status]);
}

// The lifecycle's live state: drawn unless a timeline entry is stepped to.
function liveStatus(status) {
  if (state.mode === 'live') drawStatus(status);
}

function handlerCaption(position, attempt) {
  $('#handler-name').textContent = state.handler ? state.handler.machine : '';
  $('#handler-status').textContent = position ? position.status : 'not started';
  $('#handler-step').textContent = position ? 'step ' + position.step + (position.checkpoint ? ' (checkpoint)' : '') : '';
  $('#handler-attempt').textContent = attempt ? 'attempt ' + attempt : '';
}

// The detail's handler (or null): its drawing, replaced only when its graph changes.
function renderHandler(handler) {
  const figure = $('#handler-figure');
  const box = $('#handler-diagram');
  if (!handler) {
    figure.hidden = true;
    box.replaceChildren();
    state.handlerGraph = null;
    state.handler = null;
    return;
  }
  if (state.handlerGraph !== handler.graph || !box.firstChild) {
    // The server's drawing of a machine definition, not requester data.
    if (handler.svg) box.innerHTML = handler.svg;
    else box.replaceChildren(el('p', 'muted', 'No node shared the drawing of ' + handler.machine + '.'));
    state.handlerGraph = handler.graph;
  }
  figure.hidden = false;
  state.handler = handler;
  if (state.mode === 'live') {
    handlerCaption(handler, state.current && state.current.attempt);
    highlight(box, handler.states);
  }
}

// A new position from the stream: false when its machine is not the one drawn (read the detail).
function followHandler(position, task) {
  if (!state.handler || position.graph !== state.handlerGraph) return false;
  state.handler = Object.assign({}, state.handler, position);
  if (state.mode === 'live') {
    handlerCaption(position, task.attempt);
    highlight($('#handler-diagram'), position.states);
  }
  return true;
}

// ---- stepping through the timeline ---------------------------------------------------------------

function steppedIndex() {
  return state.timeline.findIndex((e) => entryKey(e) === state.stepped);
}

function stepTo(index) {
  const entry = state.timeline[index];
  if (!entry) return;
  state.mode = 'history';
  state.stepped = entryKey(entry);
  $('#detail').dataset.mode = 'history';
  for (const li of $('#timeline').children) li.classList.toggle('stepped', li.dataset.index === String(index));
  drawStatus(entry.status);
  let position = null;
  for (let i = index; i >= 0 && !position; i--) position = state.timeline[i].handler || null;
  highlight($('#handler-diagram'), position ? position.states : []);
  if (state.handler) handlerCaption(position, entry.attempt);
  renderHistoryAt(entry, position);
}

// The timeline was read again: show the same entry (its index may have moved).
function restep() {
  const index = steppedIndex();
  if (index >= 0) stepTo(index);
}

function renderHistoryAt(entry, position) {
  const box = $('#history-at');
  const dl = box.querySelector('dl');
  dl.replaceChildren();
  const fields = [
    ['at', 'time', new Date(entry.at).toISOString()], ['event', 'event', entry.event], ['status', 'status', entry.status],
    ['message', 'status message', entry.message || '—'], ['attempt', 'attempt', entry.attempt ? String(entry.attempt) : '—'],
    ['node', 'node', entry.node || '—'],
    ['handler', 'handler', position ? position.states.join(', ') + ' (step ' + position.step + (position.checkpoint ? ', checkpoint' : '') + ')' : '—'],
  ];
  for (const [field, name, value] of fields) {
    const dd = el('dd', '', value);
    dd.dataset.field = field;
    dl.append(el('dt', '', name), dd);
  }
  box.hidden = false;
}

// Leaves history without drawing (the caller draws the live state).
function goLive() {
  state.mode = 'live';
  state.stepped = null;
  $('#detail').dataset.mode = 'live';
  $('#history-at').hidden = true;
  for (const li of document.querySelectorAll('#timeline li.stepped')) li.classList.remove('stepped');
}

function backToLive() {
  goLive();
  if (state.current) drawStatus(state.current.status);
  if (state.handler) {
    handlerCaption(state.handler, state.current && state.current.attempt);
    highlight($('#handler-diagram'), state.handler.states);
  }
}

function onStepKey(event) {
  if (state.mode !== 'history' || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) return;
  const by = event.key === 'ArrowLeft' ? -1 : event.key === 'ArrowRight' ? 1 : 0;
  if (by === 0) return;
  const index = steppedIndex() + by;
  if (index < 0 || index >= state.timeline.length) return;
  event.preventDefault();
  stepTo(index);
  const li = $('#timeline li.stepped');
  if (li) li.scrollIntoView({ block: 'nearest' });
}
`;
