/**
 * The inspector page's HTML. Kept as a TypeScript string (like its script and style) so that `tsc`
 * emits it into `dist` with the rest: no copy step, no build step, no file lookup at run time.
 *
 * The element ids and `data-*` attributes are the page's contract with its browser test; see
 * `page-script.ts` for the whole list.
 *
 * @module
 */

const STATUSES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'] as const;

const escapeAttribute = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

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
  <h1>mcp-tasks inspector</h1>
  <span id="live" data-connected="false" title="live updates">connecting…</span>
  <span id="counts"></span>
</header>
<main>
  <section id="list" aria-label="tasks">
    <div class="toolbar">
      <label>Status <select id="status-filter"><option value="">all</option>${options}</select></label>
      <label>Search <input id="search" type="search" placeholder="task id, tool, session, node, message" autocomplete="off"></label>
    </div>
    <div class="table-wrap">
      <table id="tasks">
        <thead><tr>
          <th>task id</th><th>status</th><th>method (tool)</th><th>dialect</th><th>session</th><th>node</th><th>age</th><th>status message</th><th>progress</th><th>subtasks</th>
        </tr></thead>
        <tbody></tbody>
      </table>
      <p id="empty">No tasks yet. They appear here as requesters create them.</p>
    </div>
  </section>
  <section id="detail" aria-label="selected task" hidden>
    <h2><span class="muted">task</span> <span id="detail-title"></span> <span id="detail-note" class="muted"></span></h2>
    <dl id="detail-meta" class="meta"></dl>
    <div class="diagrams">
      <figure>
        <figcaption>Lifecycle</figcaption>
        <div id="diagram" class="diagram"></div>
      </figure>
      <figure id="handler-figure" hidden>
        <figcaption>Handler machine <code id="handler-name"></code> <span id="handler-status" class="muted"></span></figcaption>
        <div id="handler-diagram" class="diagram"></div>
      </figure>
    </div>
    <div class="columns">
      <div>
        <h3>Outcome</h3>
        <div id="outcome"></div>
      </div>
      <div>
        <h3>Timeline</h3>
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
