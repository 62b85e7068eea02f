/**
 * How `mcp-tasks status` prints a node's counters of suspicious requesters (`runtime.security()`,
 * published with the node's heartbeat).
 *
 * @module
 */
import type { SecurityReport } from '../../runtime/index.js';

/**
 * The indented text lines of one node's security report (none is "audit off").
 *
 * @param report - what the node published, or `null` when it publishes none
 * @example
 * ```ts
 * lines.push(`  ${node.nodeId} …`, ...securityLines(node.security));
 * ```
 */
export function securityLines(report: SecurityReport | null): string[] {
  if (report === null || !report.enabled) return ['    audit off'];
  const { totals, thresholds } = report;
  const refusals = Object.entries(report.limitRefusals).map(([limit, n]) => `${limit} ${n}`).join(', ');
  const lines = [
    `    failed look-ups ${totals.failedLookups}  fast polls ${totals.fastPolls}  limit refusals ${totals.limitRefusals}${refusals === '' ? '' : ` (${refusals})`}  ` +
      `flagged now ${report.flagged} (thresholds per ${thresholds.windowMs / 1000} s: ${thresholds.failedLookups} failed look-ups, ${thresholds.fastPolls} fast polls)`,
  ];
  for (const r of report.top) {
    lines.push(
      `      ${r.flagged ? 'FLAGGED ' : ''}session ${r.session ?? '(none)'}${r.principal === null ? '' : ` principal ${r.principal}`}${(r.peer ?? null) === null ? '' : ` from ${r.peer}`}: ` +
        `failed look-ups ${r.failedLookups}, fast polls ${r.fastPolls}, limit refusals ${r.limitRefusals}, last seen ${new Date(r.lastSeen).toISOString()}`,
    );
  }
  return lines;
}
