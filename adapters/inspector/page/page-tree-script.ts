/**
 * The task tree of the inspector page's table, appended to its script (`page-script.ts`): each
 * subtask's row right under its parent's, indented by its level, and on a parent's row its
 * subtasks counted by status. Function declarations only: the script's first part runs before
 * this part's top-level code would, and declarations are hoisted while constants are not.
 *
 * DOM contract (see `page-script.ts` for the rest):
 * - `tr[data-level]` (0 for a row not under another) and, on a row under its parent's,
 *   `tr[data-parent-key]` (the parent's `data-task-key`).
 * - `td[data-col="subtasks"]` on a parent's row: `span.total` (how many) and one
 *   `span.count[data-status]` per status ("2 completed").
 *
 * @module
 */

/**
 * The part of the script.
 *
 * @example
 * ```ts
 * const script = PAGE_SCRIPT_BASE + PAGE_TREE_SCRIPT;
 * ```
 */
export const PAGE_TREE_SCRIPT = String.raw`
// ---- the task tree -------------------------------------------------------------------------------

// A task id is unique per owner only; a subtask has its parent's owner.
function identity(owner, taskId) {
  return (owner.session || '') + '\u0001' + (owner.principal || '') + '\u0001' + taskId;
}

function keyOfTask(owner, taskId) {
  return state.ids.get(identity(owner, taskId));
}

function parentKeyOf(task) {
  return task.parentId ? keyOfTask(task.owner, task.parentId) : undefined;
}

function levelOf(tr) {
  return Number(tr.dataset.level || 0);
}

function setLevel(tr, level) {
  tr.dataset.level = String(level);
  tr.style.setProperty('--level', String(level));
}

// A row, then the rows of its subtasks at any depth (they follow it).
function subtree(tr) {
  const rows = [tr];
  const level = levelOf(tr);
  for (let next = tr.nextElementSibling; next && levelOf(next) > level; next = next.nextElementSibling) rows.push(next);
  return rows;
}

// A subtask goes last under its parent; any other row among the top rows, newest first. A
// subtask listed before its parent (its parent's record came later, or is gone) waits at the top.
function placeRow(tr, task) {
  const parentRow = state.rows.get(parentKeyOf(task));
  if (parentRow) {
    subtree(parentRow).at(-1).after(tr);
    setLevel(tr, levelOf(parentRow) + 1);
    tr.dataset.parentKey = parentRow.dataset.taskKey;
  } else {
    let before = null;
    for (const row of tbody.rows) {
      if (levelOf(row) > 0) continue;
      const other = state.tasks.get(row.dataset.taskKey);
      if (other && other.createdAt < task.createdAt) { before = row; break; }
    }
    tbody.insertBefore(tr, before);
    setLevel(tr, 0);
    if (task.parentId) {
      const parent = identity(task.owner, task.parentId);
      if (!state.orphans.has(parent)) state.orphans.set(parent, new Set());
      state.orphans.get(parent).add(task.key);
    }
  }
  adoptChildren(tr, task);
}

// Moves the subtasks that were listed before this task under it, with their own subtasks.
function adoptChildren(tr, task) {
  const mine = identity(task.owner, task.taskId);
  const waiting = state.orphans.get(mine);
  if (!waiting) return;
  state.orphans.delete(mine);
  for (const key of waiting) {
    const row = state.rows.get(key);
    if (!row) continue;
    const moving = subtree(row);
    const shift = levelOf(tr) + 1 - levelOf(row);
    let anchor = subtree(tr).at(-1);
    for (const r of moving) {
      anchor.after(r);
      anchor = r;
      setLevel(r, levelOf(r) + shift);
    }
    row.dataset.parentKey = task.key;
  }
}

// A removed row's subtasks stay where they are, one level up per level it had.
function forgetRow(key, task) {
  const tr = state.rows.get(key);
  if (tr) {
    const level = levelOf(tr);
    for (const r of subtree(tr).slice(1)) {
      setLevel(r, levelOf(r) - level - 1);
      if (r.dataset.parentKey === key) delete r.dataset.parentKey;
    }
  }
  if (task) state.ids.delete(identity(task.owner, task.taskId));
}

// A subtask's status: its own row's when listed (the freshest), else what its parent last saw.
function childStatus(task, child) {
  const key = keyOfTask(task.owner, child.taskId);
  const seen = key === undefined ? undefined : state.tasks.get(key);
  return seen ? seen.status : child.status;
}

function renderSubtaskCell(tr, task) {
  const td = tr.querySelector('td[data-col="subtasks"]');
  if (!td) return;
  td.replaceChildren();
  const children = task.children || [];
  if (children.length === 0) return;
  const counts = new Map();
  for (const child of children) {
    const status = childStatus(task, child);
    counts.set(status, (counts.get(status) || 0) + 1);
  }
  td.append(el('span', 'total', children.length));
  for (const status of STATUSES) {
    if (!counts.has(status)) continue;
    const chip = el('span', 'count', counts.get(status) + ' ' + status);
    chip.dataset.status = status;
    td.append(' ', chip);
  }
}

// A subtask changed: its parent's counts (and its parent's detail, when shown) change too.
function renderParentOf(task) {
  const parentKey = parentKeyOf(task);
  const parent = parentKey === undefined ? undefined : state.tasks.get(parentKey);
  if (!parent) return;
  const tr = state.rows.get(parentKey);
  if (tr) renderSubtaskCell(tr, parent);
  if (parentKey === state.selected) renderFamily(parent);
}
`;
