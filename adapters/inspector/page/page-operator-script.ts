/**
 * The operator's actions on the inspector page, appended to its script (`page-script.ts`): the
 * Operator control in the header (shown only when the inspector has operators: the snapshot's
 * `actions`), signing in with an operator token (checked by `GET /api/operator`, kept in
 * `sessionStorage` for the tab), and the Cancel button of the selected task (only when signed in
 * and the task's detail offers `cancel`), which asks for confirmation and then
 * `POST /api/tasks/<key>/cancel` with the operator's token. Function declarations only, as in
 * `page-tree-script.ts`.
 *
 * DOM contract (see `page-script.ts` for the rest): `#operator` with `#operator-form`
 * (`input#operator-token`, `#operator-signin`), `#operator-who` (`#operator-name`,
 * `#operator-signout`), `#operator-error`; in the detail `#actions` (hidden without an action)
 * with `button#cancel-task` (absent unless offered) and `#action-error`.
 *
 * @module
 */

/**
 * The part of the script.
 *
 * @example
 * ```ts
 * const script = PAGE_CORE_SCRIPT + PAGE_DETAIL_SCRIPT + PAGE_OPERATOR_SCRIPT;
 * ```
 */
export const PAGE_OPERATOR_SCRIPT = String.raw`
// ---- the operator ------------------------------------------------------------------------------------

const OPERATOR_STORE = 'mcp-tasks-inspector-operator';

function offerOperator(on) {
  state.actions = on;
  $('#operator').hidden = !on;
}

function renderOperator() {
  const who = state.operator;
  $('#operator-form').hidden = Boolean(who);
  $('#operator-who').hidden = !who;
  $('#operator-name').textContent = who ? who.name : '';
}

async function signIn(operatorToken) {
  $('#operator-error').textContent = '';
  const res = await fetch('/api/operator', { headers: { authorization: 'Bearer ' + operatorToken }, cache: 'no-store' });
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    $('#operator-error').textContent = 'not signed in: ' + (body.error || 'HTTP ' + res.status);
    sessionStorage.removeItem(OPERATOR_STORE);
    return;
  }
  const view = await res.json();
  state.operator = { token: operatorToken, name: view.name };
  sessionStorage.setItem(OPERATOR_STORE, operatorToken);
  $('#operator-token').value = '';
  renderOperator();
  if (state.selected) loadDetail(state.selected);
}

function signOut() {
  state.operator = null;
  sessionStorage.removeItem(OPERATOR_STORE);
  renderOperator();
  renderActions([]);
  if (state.selected) loadDetail(state.selected);
}

// The actions the detail offers the signed-in operator: Cancel, or nothing at all.
function renderActions(actions) {
  const box = $('#actions');
  const offered = Boolean(state.operator) && actions.includes('cancel') && state.current !== null;
  box.replaceChildren();
  box.hidden = !offered;
  if (!offered) return;
  const button = el('button', 'danger', 'Cancel task');
  button.type = 'button';
  button.id = 'cancel-task';
  button.addEventListener('click', () => { cancelSelected(button).catch((error) => showActionError(String(error))); });
  const error = el('span', 'error');
  error.id = 'action-error';
  box.append(button, ' ', el('span', 'muted', 'as ' + state.operator.name), ' ', error);
}

function showActionError(text) {
  const error = $('#action-error');
  if (error) error.textContent = text;
}

async function cancelSelected(button) {
  const task = state.current;
  if (!task || !state.operator) return;
  if (!confirm('Cancel task ' + task.taskId + ' (' + methodLabel(task) + ')? Its requester sees it cancelled.')) return;
  showActionError('');
  button.disabled = true;
  const res = await fetch('/api/tasks/' + encodeURIComponent(task.key) + '/cancel', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + state.operator.token },
    cache: 'no-store',
  });
  button.disabled = false;
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    showActionError('not cancelled: ' + (body.error || 'HTTP ' + res.status));
    return;
  }
  $('#detail-note').textContent = '(cancel requested by ' + state.operator.name + ')';
  loadDetail(task.key);
}

function startOperator() {
  const signInWith = () => {
    const value = $('#operator-token').value.trim();
    if (value) signIn(value).catch((error) => { $('#operator-error').textContent = String(error); });
  };
  $('#operator-signin').addEventListener('click', signInWith);
  $('#operator-token').addEventListener('keydown', (event) => { if (event.key === 'Enter') signInWith(); });
  $('#operator-signout').addEventListener('click', signOut);
  renderOperator();
  const kept = sessionStorage.getItem(OPERATOR_STORE);
  if (kept) signIn(kept).catch(() => undefined);
}
`;
