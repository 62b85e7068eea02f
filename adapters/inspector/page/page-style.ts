/**
 * The inspector page's style sheet (served as `/inspector.css`). A TypeScript string so that `tsc`
 * emits it into `dist`; plain CSS, no preprocessor.
 *
 * @module
 */

/**
 * The style sheet.
 *
 * @example
 * ```ts
 * res.writeHead(200, { 'content-type': 'text/css' }).end(PAGE_STYLE);
 * ```
 */
export const PAGE_STYLE = `
:root {
  --fg: #0f172a; --muted: #64748b; --line: #e2e8f0; --bg: #f8fafc; --panel: #fff; --accent: #b45309;
  --submitted: #64748b; --working: #2563eb; --input_required: #7c3aed; --completed: #15803d;
  --failed: #b91c1c; --cancelled: #a16207; --unknown: #525252;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
  color: var(--fg); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
code, td[data-col="taskId"], td[data-col="session"], td[data-col="node"], td[data-col="age"], #timeline time { font-family: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.muted { color: var(--muted); font-weight: normal; }
[hidden] { display: none !important; }

.top { display: flex; align-items: baseline; gap: 1rem; padding: .6rem 1rem; background: #0f172a; color: #f1f5f9; }
.top h1 { font-size: 1.05rem; margin: 0; }
#live::before { content: ""; display: inline-block; width: .6rem; height: .6rem; border-radius: 50%; margin-right: .35rem; background: #ef4444; }
#live[data-connected="true"]::before { background: #22c55e; }
#counts { margin-left: auto; color: #cbd5e1; }
.top a { color: inherit; text-decoration: none; }
.top button, .pager button, #detail button, #operator input { font: inherit; font-size: 13px; padding: .15rem .55rem; border: 1px solid #cbd5e1; border-radius: 4px; background: #fff; color: var(--fg); cursor: pointer; }
.top button[aria-pressed="true"] { background: #fde68a; }
button:disabled { opacity: .45; cursor: default; }
#operator { color: #cbd5e1; display: inline-flex; gap: .4rem; align-items: baseline; }
#operator input { width: 11rem; cursor: text; }
#operator-name { color: #fde68a; }
.error, #operator-error, #action-error { color: #f87171; }
#detail .error, #action-error { color: var(--failed); }

main { padding: 1rem; display: grid; gap: 1rem; }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; min-width: 0; }
.toolbar { display: flex; flex-wrap: wrap; gap: .4rem .7rem; margin-bottom: .6rem; font-size: 13px; }
.toolbar input, .toolbar select { font: inherit; padding: .25rem .4rem; border: 1px solid #cbd5e1; border-radius: 4px; }
.toolbar input { width: 7rem; max-width: 100%; }
.toolbar input#search { width: 13rem; }
#status-counts { display: flex; flex-wrap: wrap; gap: .4rem; margin-bottom: .6rem; }
.chip { font: inherit; font-size: 12.5px; border: 1px solid var(--line); border-radius: 999px; padding: .1rem .6rem; background: #f8fafc; cursor: pointer; }
.chip .n { font-weight: 700; }
.chip[aria-pressed="true"] { background: #fef3c7; border-color: var(--accent); }
.chip[data-status="working"] .name { color: var(--working); }
.chip[data-status="input_required"] .name { color: var(--input_required); }
.chip[data-status="completed"] .name { color: var(--completed); }
.chip[data-status="failed"] .name { color: var(--failed); }
.chip[data-status="cancelled"] .name { color: var(--cancelled); }
.pager { display: flex; gap: .8rem; align-items: baseline; justify-content: flex-end; margin-top: .5rem; }
#page-info { font-variant-numeric: tabular-nums; color: var(--muted); }
#notice { margin: 0 0 .5rem; padding: .35rem .6rem; background: #fef3c7; border-radius: 4px; }

.table-wrap { max-height: 45vh; overflow: auto; }
/* With no task open, the list takes the room. */
main:has(#detail[hidden]) .table-wrap { max-height: 72vh; }
table { border-collapse: collapse; width: 100%; }
th { position: sticky; top: 0; background: #f1f5f9; text-align: left; font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: #475569; }
th, td { padding: .35rem .55rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
td[data-col="message"] { white-space: normal; max-width: 28rem; overflow-wrap: anywhere; }
tbody tr { cursor: pointer; }
tbody tr:hover { background: #f1f5f9; }
tbody tr.selected { background: #fef3c7; box-shadow: inset 3px 0 0 var(--accent); }
#empty { color: var(--muted); margin: .6rem 0 0; }

td[data-col="status"] { font-weight: 600; }
tr[data-status="submitted"] td[data-col="status"] { color: var(--submitted); }
tr[data-status="working"] td[data-col="status"] { color: var(--working); }
tr[data-status="input_required"] td[data-col="status"] { color: var(--input_required); }
tr[data-status="completed"] td[data-col="status"] { color: var(--completed); }
tr[data-status="failed"] td[data-col="status"] { color: var(--failed); }
tr[data-status="cancelled"] td[data-col="status"] { color: var(--cancelled); }
tr[data-status="unknown"] td[data-col="status"] { color: var(--unknown); }

#detail h2 { font-size: 1.1rem; margin: 0 0 .4rem; overflow-wrap: anywhere; }
#detail h3 { font-size: .95rem; margin: .8rem 0 .4rem; }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .8rem; margin: 0; }
#detail-meta { grid-template-columns: repeat(3, max-content minmax(0, 1fr)); }
@media (max-width: 1000px) { #detail-meta { grid-template-columns: max-content 1fr; } }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.diagrams { display: flex; flex-wrap: wrap; gap: 1rem; margin-top: .6rem; }
.diagrams figure { margin: 0; flex: 1 1 28rem; min-width: 0; border: 1px solid var(--line); border-radius: 6px; padding: .4rem; }
.diagrams figure#handler-figure { flex: 0 1 22rem; }
figcaption { font-size: 12px; color: var(--muted); margin-bottom: .3rem; }
/* Shrink a large drawing to fit, never blow a small one up. */
.diagram svg { display: block; width: auto; max-width: 100%; height: auto; max-height: 26rem; margin: 0 auto; }
.columns { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.4fr); gap: 1.2rem; }
@media (max-width: 900px) { .columns { grid-template-columns: minmax(0, 1fr); } }

#outcome dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .8rem; margin: 0; }
#outcome dt { color: var(--muted); }
#outcome dd { margin: 0; overflow-wrap: anywhere; }
#outcome .error { color: var(--failed); }
#outcome pre { margin: .3rem 0 0; padding: .5rem; background: #f1f5f9; border-radius: 4px; max-height: 18rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }

/* The task tree: a subtask's id indented by its level under its parent's row. */
td[data-col="taskId"] { padding-left: calc(.55rem + var(--level, 0) * 1.3rem); }
tr[data-parent-key] td[data-col="taskId"]::before { content: "↳"; margin-right: .3em; color: var(--muted); }
td[data-col="subtasks"] .total { font-weight: 600; }
td[data-col="subtasks"] .count, #children .status { font-size: 12px; }
.count[data-status="working"], #children li[data-status="working"] .status { color: var(--working); }
.count[data-status="input_required"], #children li[data-status="input_required"] .status { color: var(--input_required); }
.count[data-status="completed"], #children li[data-status="completed"] .status { color: var(--completed); }
.count[data-status="failed"], #children li[data-status="failed"] .status { color: var(--failed); }
.count[data-status="cancelled"], #children li[data-status="cancelled"] .status { color: var(--cancelled); }
.count[data-status="submitted"], .count[data-status="unknown"], #children .status { color: var(--muted); }
a.task-link { color: var(--working); font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }

#detail-parent { margin: 0 0 .3rem; }
#children, #partials { margin: 0; padding-left: 1.6rem; max-height: 18rem; overflow: auto; }
#children li, #partials li { padding: .1rem 0; }
#partials { list-style: none; padding-left: .2rem; }
#partials .seq { color: var(--muted); font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
#partials time { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; color: var(--muted); }
#partials .partial-text { white-space: pre-wrap; overflow-wrap: anywhere; }
#partials .partial-text + .partial-text::before { content: " "; }
#partials pre { margin: .2rem 0; padding: .4rem; background: #f1f5f9; border-radius: 4px; max-height: 10rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; }
#deliveries tbody tr { cursor: default; }
#deliveries tr[data-delivered="false"] td[data-col="answer"] { color: var(--failed); }

#timeline { margin: 0; padding-left: 2.4rem; max-height: 22rem; overflow: auto; }
#timeline li { padding: .15rem .3rem; cursor: pointer; border-radius: 3px; }
#timeline li:hover { background: #f1f5f9; }
#timeline li.stepped { background: #fef3c7; box-shadow: inset 3px 0 0 var(--accent); }
#timeline li[data-event="task.handler"] .event { color: var(--input_required); }
#timeline .handler-states { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
#timeline .step, #timeline .attempt { color: var(--muted); font-size: 12px; }
#timeline .checkpoint { font-size: 11px; padding: 0 .35rem; border-radius: 3px; background: #dcfce7; color: var(--completed); }
#detail[data-mode="history"] .diagrams figure { border-color: var(--accent); background: #fffbeb; }
#history-at { margin: .6rem 0 0; padding: .5rem .7rem; border: 1px solid var(--accent); border-radius: 6px; background: #fffbeb; }
#history-at .meta { margin-top: .3rem; grid-template-columns: repeat(4, max-content minmax(0, 1fr)); }
#close-detail { float: right; }
#actions { margin: .2rem 0 .6rem; }
button.danger { border-color: var(--failed) !important; color: var(--failed) !important; }
#inputs-box { margin: .6rem 0; padding: .3rem .8rem .5rem; border: 1px solid var(--input_required); border-radius: 6px; background: #faf5ff; }
#inputs-box h3 { margin-top: .3rem; }
#inputs { margin: 0; padding-left: 1.2rem; }
#inputs .kind { font-weight: 600; color: var(--input_required); }
#inputs .question { margin: .3rem 0; font-size: 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
#inputs .schema-fields { margin: .2rem 0; padding-left: 1.2rem; }
#inputs .type, #inputs .required, #inputs .description { color: var(--muted); }
#inputs .sampling-messages .role { font-weight: 600; }
#inputs pre { margin: .2rem 0; padding: .4rem; background: #f1f5f9; border-radius: 4px; max-height: 12rem; overflow: auto; font-size: 12px; }
#cluster h2 { font-size: 1.05rem; margin: 0 0 .4rem; }
#cluster-nodes tbody tr { cursor: default; }
#cluster-nodes tr[data-up="false"] td[data-col="up"] { color: var(--failed); font-weight: 600; }
#cluster-nodes tr[data-up="true"] td[data-col="up"] { color: var(--completed); }
#timeline .event { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
#timeline .status { font-weight: 600; }
#timeline .node, #timeline .message { color: var(--muted); }
`;
