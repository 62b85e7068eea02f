/**
 * The inspector page's HTML. Kept as a TypeScript string (like its script and style) so that `tsc`
 * emits it into `dist` with the rest: no copy step, no build step, no file lookup at run time.
 * The same page answers `/` and `/tasks/<taskId>` (its script reads the path), so it loads its
 * script and style by absolute URLs.
 *
 * The element ids and `data-*` attributes are the page's contract with its browser test; see
 * `page-script.ts` for the whole list.
 *
 * @module
 */

const STATUSES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'] as const;

/** The relative choices of the "created since" filter (the script turns them into a time). */
const SINCE_CHOICES: readonly (readonly [string, string])[] = [
  ['', 'any time'],
  ['5m', 'last 5 minutes'],
  ['1h', 'last hour'],
  ['24h', 'last 24 hours'],
  ['7d', 'last 7 days'],
];

const escapeAttribute = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const textFilter = (id: string, label: string, placeholder: string): string =>
  `<label>${label} <input id="${id}" type="text" placeholder="${placeholder}" autocomplete="off" spellcheck="false"></label>`;

/**
 * The page, with the token (when one is needed) on the URLs of its script and style: a browser
 * loads them by URL, so that is the only way they can pass the access check.
 *
 * @param token - the inspector's token, or `null`
 * @example
 * ```ts
 * res.end(pageHtml(access.token));
 * ```
 */
export function pageHtml(token: string | null): string {
  const query = token === null ? '' : escapeAttribute(`?token=${encodeURIComponent(token)}`);
  const options = STATUSES.map((s) => `<option value="${s}">${s}</option>`).join('');
  const chips = STATUSES.map((s) => `<button type="button" class="chip" data-status="${s}" aria-pressed="false"><span class="name">${s}</span> <span class="n">0</span></button>`).join('');
  const since = SINCE_CHOICES.map(([value, text]) => `<option value="${value}">${text}</option>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcp-tasks inspector</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/inspector.css${query}">
<script type="module" src="/inspector.js${query}"></script>
</head>
<body>
<header class="top">
  <h1><a href="/" id="home">mcp-tasks inspector</a></h1>
  <span id="live" data-connected="false" title="live updates">connecting…</span>
  <span id="counts"></span>
  <button type="button" id="show-cluster" aria-pressed="false" hidden>Cluster</button>
  <span id="operator" hidden>
    <span id="operator-form"><label>Operator <input id="operator-token" type="password" placeholder="operator token" autocomplete="off"></label>
    <button type="button" id="operator-signin">Sign in</button></span>
    <span id="operator-who" hidden>operator <strong id="operator-name"></strong> <button type="button" id="operator-signout">Sign out</button></span>
    <span id="operator-error" class="error"></span>
  </span>
</header>
<main>
  <section id="cluster" aria-label="cluster" hidden>
    <h2>Cluster <span id="cluster-summary" class="muted"></span></h2>
    <table id="cluster-nodes">
      <thead><tr><th>node</th><th>role</th><th>up</th><th>running</th><th>tasks run</th><th>leases held</th><th>last heartbeat</th><th>host</th></tr></thead>
      <tbody></tbody>
    </table>
    <p id="cluster-note" class="muted"></p>
  </section>
  <section id="list" aria-label="tasks">
    <div id="status-counts" role="group" aria-label="tasks by status">${chips}</div>
    <div class="toolbar">
      <label>Status <select id="status-filter"><option value="">all</option>${options}</select></label>
      <label>Search <input id="search" type="search" placeholder="task id, tool, session, node, message" autocomplete="off"></label>
      ${textFilter('filter-method', 'Method', 'tools/call')}
      ${textFilter('filter-label', 'Tool', 'long_job')}
      ${textFilter('filter-node', 'Node', 'node id')}
      ${textFilter('filter-owner', 'Owner', 'principal or session')}
      ${textFilter('filter-dialect', 'Dialect', '2025-11-25')}
      <label>Created <select id="filter-since">${since}</select></label>
    </div>
    <p id="notice" hidden></p>
    <div class="table-wrap">
      <table id="tasks">
        <thead><tr>
          <th>task id</th><th>status</th><th>method (tool)</th><th>dialect</th><th>session</th><th>node</th><th>age</th><th>status message</th><th>progress</th><th>subtasks</th>
        </tr></thead>
        <tbody></tbody>
      </table>
      <p id="empty">No tasks yet. They appear here as requesters create them.</p>
    </div>
    <div class="pager">
      <button type="button" id="page-newer" disabled>← Newer</button>
      <span id="page-info"></span>
      <button type="button" id="page-older" disabled>Older →</button>
    </div>
  </section>
  <section id="detail" aria-label="selected task" data-mode="live" hidden>
    <h2><span class="muted">task</span> <span id="detail-title"></span> <span id="detail-note" class="muted"></span>
      <button type="button" id="close-detail" title="close the detail">×</button></h2>
    <div id="actions" hidden></div>
    <dl id="detail-meta" class="meta"></dl>
    <div id="history-at" hidden>
      <strong>As at this timeline entry</strong> <button type="button" id="back-to-live">Back to live</button>
      <dl class="meta"></dl>
    </div>
    <div id="inputs-box" hidden>
      <h3>Waiting for input</h3>
      <ul id="inputs"></ul>
    </div>
    <div class="diagrams">
      <figure>
        <figcaption>Lifecycle</figcaption>
        <div id="diagram" class="diagram"></div>
      </figure>
      <figure id="handler-figure" hidden>
        <figcaption>Handler machine <code id="handler-name"></code> <span id="handler-status" class="muted"></span>
          <span id="handler-step" class="muted"></span> <span id="handler-attempt" class="muted"></span></figcaption>
        <div id="handler-diagram" class="diagram"></div>
      </figure>
    </div>
    <div class="columns">
      <div>
        <h3>Outcome</h3>
        <div id="outcome"></div>
      </div>
      <div>
        <h3>Timeline <span class="muted">(click an entry to see the machines as they were then)</span></h3>
        <ol id="timeline"></ol>
      </div>
    </div>
    <div class="columns">
      <div id="family" hidden>
        <h3>Parent and subtasks</h3>
        <p id="detail-parent"></p>
        <ul id="children"></ul>
      </div>
      <div id="partials-box" hidden>
        <h3>Partial results</h3>
        <ol id="partials"></ol>
      </div>
    </div>
    <div id="deliveries-box" hidden>
      <h3>Push deliveries</h3>
      <table id="deliveries">
        <thead><tr><th>time</th><th>url</th><th>attempt</th><th>answer</th><th>delivered</th><th>final</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
  </section>
</main>
</body>
</html>
`;
}
