import { describe, expect, it } from 'vitest';
import { declaresTasks, EXT_TASKS, renderDetailedTask, renderTaskExt, TASKS_EXTENSION_ID } from '../../../adapters/dialects/ext/index.js';
import { renderInOwnDialect } from '../../../adapters/dialects/index.js';
import { checkRoutingHeaders, readRequestMeta, StatelessError } from '../../../adapters/wire/stateless/index.js';
import type { TaskView } from '../../../runtime/index.js';

const created = Date.UTC(2026, 0, 1, 10, 0, 0);
const base: TaskView = {
  taskId: 't1',
  owner: { session: null, principal: null },
  dialect: EXT_TASKS,
  method: 'tools/call',
  label: 'sleep',
  keepAlive: 60_000,
  pollFrequency: 500,
  createdAt: created,
  updatedAt: created + 5_000,
  statusMessage: null,
  error: null,
  pendingInputs: [],
  resultRef: null,
  status: 'working',
  expiresAt: null,
};
/** A read well past the configured interval. */
const OLD = created + 10_000;

describe('ext codec', () => {
  it('should render a flat task with ttlMs from creation and no legacy fields', () => {
    const shown = renderTaskExt(base, OLD);
    expect(shown).toEqual({
      taskId: 't1',
      status: 'working',
      createdAt: '2026-01-01T10:00:00.000Z',
      lastUpdatedAt: '2026-01-01T10:00:05.000Z',
      ttlMs: 70_000,
      pollIntervalMs: 500,
    });
    expect(renderInOwnDialect(base, { withMeta: true }, OLD)).not.toHaveProperty('_meta');
  });

  it('should render the real expiry of a terminal task, null for unlimited, and integers only', () => {
    expect(renderTaskExt({ ...base, status: 'completed', expiresAt: created + 90_000.4 }, OLD)['ttlMs']).toBe(90_001);
    expect(renderTaskExt({ ...base, keepAlive: null }, OLD)['ttlMs']).toBeNull();
    expect(renderTaskExt({ ...base, pollFrequency: 0.5 }, OLD)['pollIntervalMs']).toBe(1);
  });

  it('should render as pollIntervalMs what the task suggests at the time of the read', () => {
    expect(renderTaskExt(base, created + 40)['pollIntervalMs']).toBe(40);
    expect(renderTaskExt(base, created)['pollIntervalMs']).toBe(25);
    expect(renderTaskExt({ ...base, status: 'completed', expiresAt: created + 60_040 }, created + 40)['pollIntervalMs']).toBe(500);
  });

  it('should map submitted to working and unknown to failed with a message', () => {
    expect(renderTaskExt({ ...base, status: 'submitted' }, OLD)['status']).toBe('working');
    expect(renderTaskExt({ ...base, status: 'unknown', error: 'worker lost' }, OLD)).toMatchObject({ status: 'failed', statusMessage: 'The outcome of this task is unknown: worker lost' });
  });

  it('should inline only what the status carries', () => {
    const inputs = { 'input-1': { method: 'elicitation/create', params: {} } };
    expect(renderDetailedTask({ ...base, status: 'input_required' }, { inputRequests: inputs }, OLD)['inputRequests']).toEqual(inputs);
    expect(renderDetailedTask(base, { inputRequests: inputs }, OLD)).not.toHaveProperty('inputRequests');
    expect(renderDetailedTask({ ...base, status: 'completed' }, { result: { content: [] } }, OLD)['result']).toEqual({ content: [] });
    const failed = renderDetailedTask({ ...base, status: 'failed' }, { error: { code: -32603, message: 'boom' } }, OLD);
    expect(failed).toMatchObject({ error: { code: -32603, message: 'boom' } });
    expect(failed).not.toHaveProperty('result');
  });

  it('should read the extension from the request capabilities only', () => {
    expect(declaresTasks({ extensions: { [TASKS_EXTENSION_ID]: {} } })).toBe(true);
    expect(declaresTasks({ extensions: {} })).toBe(false);
    expect(declaresTasks({ tasks: {} })).toBe(false);
    expect(declaresTasks(undefined)).toBe(false);
  });
});

describe('stateless wire envelope', () => {
  const meta = (m: Record<string, unknown>) => ({ _meta: m });
  it('should read the per-request _meta and refuse what is missing or unsupported', () => {
    const caps = { extensions: {} };
    expect(readRequestMeta(meta({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps })).clientCapabilities).toBe(caps);
    expect(() => readRequestMeta({})).toThrow(StatelessError);
    expect(() => readRequestMeta(meta({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }))).toThrow(/clientCapabilities/);
    try {
      readRequestMeta(meta({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25', 'io.modelcontextprotocol/clientCapabilities': {} }));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: -32022, httpStatus: 400, data: { requested: '2025-11-25', supported: ['2026-07-28'] } });
    }
  });

  it('should check Mcp-Method and Mcp-Name against the body, trimming and decoding base64', () => {
    expect(() => checkRoutingHeaders({ 'mcp-method': ' tasks/get ', 'mcp-name': 't1' }, 'tasks/get', { taskId: 't1' })).not.toThrow();
    expect(() => checkRoutingHeaders({ 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${Buffer.from('grüße').toString('base64')}?=` }, 'tools/call', { name: 'grüße' })).not.toThrow();
    expect(() => checkRoutingHeaders({ 'mcp-method': 'tools/list' }, 'tools/list', {})).not.toThrow();
    expect(() => checkRoutingHeaders({ 'mcp-method': 'tasks/get' }, 'tools/call', { name: 'x' })).toThrow(/Mcp-Method 'tasks\/get'/);
    expect(() => checkRoutingHeaders({ 'mcp-method': 'tasks/get', 'mcp-name': 'T1' }, 'tasks/get', { taskId: 't1' })).toThrow(/Mcp-Name 'T1'/);
    expect(() => checkRoutingHeaders({ 'mcp-method': 'resources/read' }, 'resources/read', { uri: 'demo://r' })).toThrow(/Mcp-Name missing/);
    const meta = { _meta: { 'io.modelcontextprotocol/protocolVersion': 'v999' } };
    expect(() => checkRoutingHeaders({ 'mcp-method': 'server/discover', 'mcp-protocol-version': '2026-07-28' }, 'server/discover', meta)).toThrow(/MCP-Protocol-Version/);
    expect(() => checkRoutingHeaders({ 'mcp-method': 'server/discover', 'mcp-protocol-version': 'v999' }, 'server/discover', meta)).not.toThrow();
  });
});
