/**
 * The inspector page's detail sections beyond the lifecycle, appended to its script
 * (`page-script.ts`): the selected task's parent and subtasks (as links that select them), its
 * partial results, and its push deliveries. Function declarations only, as in `page-tree-script.ts`.
 *
 * DOM contract (see `page-script.ts` for the rest):
 * - `#family` (hidden for a top-level task without subtasks): `#detail-parent` with
 *   `a.task-link[data-task-key]` to the parent, `ul#children > li[data-task-id][data-status]` each
 *   with `a.task-link` (when the subtask is listed) and `span.status`.
 * - `#partials-box` (hidden without any): `ol#partials > li[data-seq]` with `time`, then
 *   `span.partial-text` per text block and `pre.partial-json` for anything else (or a note that
 *   results are not shown).
 * - `#deliveries-box` (hidden without any): `table#deliveries tbody tr[data-delivered][data-final]`,
 *   cells `td[data-col]` with `at`, `url`, `attempt`, `answer`, `delivered`, `final`.
 *
 * @module
 */

/**
 * The part of the script.
 *
 * @example
 * ```ts
 * const script = PAGE_SCRIPT_BASE + PAGE_TREE_SCRIPT + PAGE_FAMILY_SCRIPT;
 * ```
 */
export const PAGE_FAMILY_SCRIPT = String.raw`
// ---- the detail: parent, subtasks, partial results, push deliveries --------------------------

function taskLink(taskId, key) {
  if (key === undefined) return el('code', '', taskId);
  const a = el('a', 'task-link', taskId);
  a.href = '#';
  a.dataset.taskKey = key;
  a.addEventListener('click', (event) => {
    event.preventDefault();
    select(key);
    const row = state.rows.get(key);
    if (row) row.scrollIntoView({ block: 'nearest' });
  });
  return a;
}

function renderFamily(task) {
  const parent = $('#detail-parent');
  const list = $('#children');
  parent.replaceChildren();
  list.replaceChildren();
  const children = task.children || [];
  $('#family').hidden = !task.parentId && children.length === 0;
  if (task.parentId) parent.append('subtask of ', taskLink(task.parentId, keyOfTask(task.owner, task.parentId)), ' (depth ' + task.depth + ')');
  else parent.append(el('span', 'muted', children.length + ' subtask' + (children.length === 1 ? '' : 's')));
  for (const child of children) {
    const status = childStatus(task, child);
    const li = el('li');
    li.dataset.taskId = child.taskId;
    li.dataset.status = status;
    li.append(taskLink(child.taskId, keyOfTask(task.owner, child.taskId)), ' ', el('span', 'status', status));
    list.append(li);
  }
}

// Text blocks as their text, anything else as JSON (content is usually MCP content blocks).
function appendContent(li, content) {
  const blocks = Array.isArray(content) ? content : [content];
  for (const block of blocks) {
    if (block && block.type === 'text' && typeof block.text === 'string') li.append(el('span', 'partial-text', block.text));
    else li.append(el('pre', 'partial-json', JSON.stringify(block, null, 2) || 'null'));
  }
}

function renderPartials(task) {
  const marks = task.partials || [];
  $('#partials-box').hidden = marks.length === 0;
  const list = $('#partials');
  list.replaceChildren();
  // Contents come with the detail; the live stream gives numbers and times only.
  const contents = new Map();
  for (const p of state.partials) if ('content' in p) contents.set(p.seq, p.content);
  const shown = marks.slice(-MAX_TIMELINE);
  if (shown.length < marks.length) list.append(el('li', 'muted', (marks.length - shown.length) + ' earlier not shown'));
  for (const p of shown) {
    const li = el('li');
    li.dataset.seq = String(p.seq);
    const time = el('time', '', clock(p.at));
    time.dateTime = new Date(p.at).toISOString();
    li.append(el('span', 'seq', '#' + p.seq), ' ', time, ' ');
    if (contents.has(p.seq)) appendContent(li, contents.get(p.seq));
    else li.append(el('span', 'muted', state.showResults ? '…' : '(hidden: results are not enabled on this inspector)'));
    list.append(li);
  }
}

// The detail again once a newer partial result is announced (loadDetail makes one request at
// a time, so a task that publishes faster than a request takes still gets its detail read).
function refreshPartials(task) {
  const known = state.partials.length === 0 ? 0 : state.partials[state.partials.length - 1].seq;
  const marks = task.partials || [];
  if (!state.showResults || marks.length === 0 || marks[marks.length - 1].seq <= known) return;
  loadDetail(task.key);
}

function renderDeliveries(deliveries) {
  const attempts = Array.isArray(deliveries) ? deliveries : [];
  $('#deliveries-box').hidden = attempts.length === 0;
  const body = $('#deliveries tbody');
  body.replaceChildren();
  for (const d of attempts) {
    const tr = el('tr');
    tr.dataset.delivered = String(Boolean(d.delivered));
    tr.dataset.final = String(Boolean(d.final));
    const http = typeof d.status === 'number' ? 'HTTP ' + d.status : '';
    const answer = http && d.error ? http + ' (' + d.error + ')' : http || d.error || '—';
    const cells = [['at', clock(d.at)], ['url', d.url], ['attempt', '#' + d.attempt], ['answer', answer], ['delivered', d.delivered ? 'yes' : 'no'], ['final', d.final ? 'yes' : 'no']];
    for (const [column, text] of cells) {
      const td = el('td', '', text);
      td.dataset.col = column;
      tr.append(td);
    }
    body.append(tr);
  }
}
`;
