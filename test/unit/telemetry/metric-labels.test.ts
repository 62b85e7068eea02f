// The bounding of metric label values (runtime/telemetry/metric-labels.ts): each kind of label
// keeps the values of its known set and turns anything else into _OTHER, so that no requester
// can add series by making names up.
import { describe, expect, it } from 'vitest';
import { boundedDialect, boundedErrorCode, boundedErrorType, boundedLimit, boundedMethod, boundedProtocolVersion, boundedTarget, OTHER } from '../../../runtime/telemetry/metric-labels.js';

describe('metric label bounds', () => {
  it('should keep MCP methods and the notifications the server knows, and make any other method _OTHER', () => {
    for (const method of ['initialize', 'tools/call', 'tasks/get', 'subscriptions/listen', 'notifications/initialized', 'notifications/cancelled', 'notifications/tasks/status']) {
      expect(boundedMethod(method)).toBe(method);
    }
    for (const method of ['notifications/x-1', 'notifications/', 'made/up', '', 'TOOLS/CALL', 'tools/call ', '__proto__', 'constructor']) {
      expect(boundedMethod(method)).toBe(OTHER);
    }
  });

  it('should keep only the protocol versions spoken', () => {
    for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']) expect(boundedProtocolVersion(v)).toBe(v);
    for (const v of ['1999-01-01', '2025-11-26', 'latest', '', '2025-11-25\n']) expect(boundedProtocolVersion(v)).toBe(OTHER);
  });

  it('should keep a registered target and make any other _OTHER, asking the registry at each call', () => {
    const registered = new Set(['sleep']);
    const known = (name: string): boolean => registered.has(name);
    expect(boundedTarget('sleep', known)).toBe('sleep');
    expect(boundedTarget('no_such_tool', known)).toBe(OTHER);
    registered.add('late');
    expect(boundedTarget('late', known)).toBe('late');
  });

  it('should keep the JSON-RPC codes and the server-error range, and no other code', () => {
    for (const code of [-32700, -32600, -32601, -32602, -32603, -32000, -32002, -32029, -32042, -32099]) expect(boundedErrorCode(code)).toBe(String(code));
    for (const code of [0, 1, 404, -32100, -31999, -32604, -32699, -32701, 1.5, Number.NaN, -32000.5]) expect(boundedErrorCode(code)).toBe(OTHER);
  });

  it('should keep the named error types and bounded codes, and make anything else _OTHER', () => {
    for (const t of ['tool_error', 'cancelled', 'connection_closed', 'superseded', OTHER]) expect(boundedErrorType(t)).toBe(t);
    expect(boundedErrorType(-32603)).toBe('-32603');
    expect(boundedErrorType(12345)).toBe(OTHER);
    expect(boundedErrorType('-32603')).toBe(OTHER);
    expect(boundedErrorType('anything')).toBe(OTHER);
  });

  it('should keep the dialects and the limits a TaskLimitError names', () => {
    for (const d of ['2025-11-25', 'sep-1686', 'ext']) expect(boundedDialect(d)).toBe(d);
    expect(boundedDialect('made-up')).toBe(OTHER);
    for (const l of ['maxConcurrentTasks', 'pollsPerSecond', 'maxRetainedBytes', 'maxRequestBytes']) expect(boundedLimit(l)).toBe(l);
    expect(boundedLimit('toString')).toBe(OTHER);
    expect(boundedLimit('made-up')).toBe(OTHER);
  });
});
