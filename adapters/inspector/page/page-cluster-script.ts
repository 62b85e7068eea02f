/**
 * The cluster view of the inspector page, appended to its script (`page-script.ts`): the nodes of
 * the task space (`GET /api/cluster`, what `mcp-tasks status` reads) with their role, whether they
 * are up, their load, the tasks they ran, the leases they hold and the age of their last
 * heartbeat, read again every 5 s while shown. The toggle stays hidden when the inspector has no
 * cluster view (404). Function declarations only, as in `page-tree-script.ts`.
 *
 * DOM contract (see `page-script.ts` for the rest): `button#show-cluster` (`aria-pressed`),
 * `#cluster` (hidden until shown) with `#cluster-summary`, `table#cluster-nodes tbody
 * tr[data-node][data-up]`, cells `td[data-col]` with `node`, `role`, `up`, `running`, `tasksRun`,
 * `leases`, `heartbeat`, `host`; `#cluster-note` when it cannot be read.
 *
 * @module
 */

/**
 * The part of the script.
 *
 * @example
 * ```ts
 * const script = PAGE_CORE_SCRIPT + PAGE_CLUSTER_SCRIPT;
 * ```
 */
export const PAGE_CLUSTER_SCRIPT = String.raw`
// ---- the cluster -----------------------------------------------------------------------------------

const CLUSTER_REFRESH_MS = 5000;

function noCluster() {
  clearInterval(state.clusterTimer);
  state.clusterTimer = null;
  $('#cluster').hidden = true;
  $('#show-cluster').hidden = true;
}

async function refreshCluster() {
  const res = await api('/api/cluster');
  if (res.status === 404) return noCluster();
  $('#show-cluster').hidden = false;
  const note = $('#cluster-note');
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    note.textContent = 'The cluster could not be read: ' + (body.error || 'HTTP ' + res.status);
    return;
  }
  note.textContent = '';
  renderCluster(await res.json());
}

function renderCluster(report) {
  const body = $('#cluster-nodes tbody');
  body.replaceChildren();
  const now = Date.now();
  const leases = Array.isArray(report.leases) ? report.leases : [];
  const nodes = Array.isArray(report.nodes) ? report.nodes : [];
  for (const node of nodes) {
    const tr = el('tr');
    tr.dataset.node = node.nodeId;
    tr.dataset.up = String(Boolean(node.up));
    const held = leases.filter((l) => l.nodeId === node.nodeId && !l.expired).length;
    const cells = [
      ['node', node.nodeId], ['role', node.role], ['up', node.up ? 'up' : 'down'], ['running', node.running],
      ['tasksRun', node.tasksRun], ['leases', held], ['heartbeat', age(now - node.lastSeen) + ' ago'], ['host', node.host + ':' + node.pid],
    ];
    for (const [column, text] of cells) {
      const td = el('td', '', text);
      td.dataset.col = column;
      tr.append(td);
    }
    body.append(tr);
  }
  const counts = report.counts || {};
  const live = ['submitted', 'working', 'input_required'].reduce((n, s) => n + (counts[s] || 0), 0);
  $('#cluster-summary').textContent = nodes.length + ' node' + (nodes.length === 1 ? '' : 's') + ', ' + leases.length + ' lease' + (leases.length === 1 ? '' : 's') + ', ' + live + ' live task' + (live === 1 ? '' : 's');
}

function toggleCluster() {
  const section = $('#cluster');
  const show = section.hidden;
  section.hidden = !show;
  $('#show-cluster').setAttribute('aria-pressed', String(show));
  clearInterval(state.clusterTimer);
  state.clusterTimer = null;
  if (!show) return;
  refreshCluster().catch(() => undefined);
  state.clusterTimer = setInterval(() => { refreshCluster().catch(() => undefined); }, CLUSTER_REFRESH_MS);
}

function startCluster() {
  $('#show-cluster').addEventListener('click', toggleCluster);
  // Offer the view only where there is one; a first request that fails (the server busy or
  // restarting) is made again, or the button would stay hidden until a reload.
  const probe = () => refreshCluster().catch(() => setTimeout(probe, CLUSTER_REFRESH_MS));
  probe();
}
`;
