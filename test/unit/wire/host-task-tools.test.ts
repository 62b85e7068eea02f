// Which requesters get the task tools, and what they list; the calls themselves are tested end to
// end against real servers (test/integration/host-task-tools.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTaskRuntime } from '../../../runtime/index.js';
import { declaresNoTasks, HOST_TASK_TOOL_NAMES, hostTaskTools } from '../../../adapters/wire/host-task-tools.js';
import { servedDefinitions } from '../../../adapters/wire/served-work.js';
import type { TaskToolDefinition } from '../../../adapters/wire/definitions.js';

const runtime = createTaskRuntime();
afterAll(() => runtime.dispose());

const tool = (name: string, taskSupport: 'forbidden' | 'optional' | 'required'): TaskToolDefinition => ({
  name,
  description: `${name} tool`,
  inputSchema: z.object({}),
  taskSupport,
  run: async () => ({ content: [{ type: 'text', text: name }] }),
});

describe('declaresNoTasks', () => {
  it('should be true only for known capabilities with neither tasks nor the tasks extension', () => {
    expect(declaresNoTasks({})).toBe(true);
    expect(declaresNoTasks({ elicitation: {}, sampling: {}, extensions: { other: {} } })).toBe(true);
    expect(declaresNoTasks({ tasks: {} })).toBe(false);
    expect(declaresNoTasks({ extensions: { 'io.modelcontextprotocol/tasks': {} } })).toBe(false);
    // Unknown (no initialize seen): the protocol is left as it is.
    expect(declaresNoTasks(undefined)).toBe(false);
  });
});

describe('hostTaskTools', () => {
  const served = servedDefinitions({ tools: [tool('job', 'required'), tool('maybe', 'optional'), tool('now', 'forbidden')] });
  const host = hostTaskTools(runtime, served);

  it('should serve a plain request of a host that declared nothing, never one that asks for a task itself', () => {
    expect(host.serves({}, { name: 'job' })).toBe(true);
    expect(host.serves({}, { name: 'job', task: { ttl: 1000 } })).toBe(false);
    expect(host.serves({}, { name: 'job', _meta: { 'modelcontextprotocol.io/task': { taskId: 'x' } } })).toBe(false);
    expect(host.serves({ tasks: {} }, { name: 'job' })).toBe(false);
  });

  it('should list task-capable tools without execution, forbidden ones as they were, then the four', () => {
    const listed = [
      { name: 'job', description: 'job tool', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
      { name: 'now', description: 'now tool', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } },
    ];
    const shown = host.list(listed) as Record<string, unknown>[];
    expect(shown.map((t) => t['name'])).toEqual(['job', 'now', ...HOST_TASK_TOOL_NAMES]);
    expect(shown[0]).not.toHaveProperty('execution');
    expect(shown[0]!['description']).toMatch(/^job tool Runs in the background/);
    expect(shown[1]).toBe(listed[1]);
  });

  it('should leave a forbidden or unknown tool to the normal path', () => {
    const requester = { owner: { session: 's', principal: null }, ownerFor: () => ({ session: 's', principal: null }), signal: new AbortController().signal };
    expect(host.call({ name: 'now' }, requester)).toBeNull();
    expect(host.call({ name: 'nope' }, requester)).toBeNull();
    // Not the four tools' table's inherited keys either.
    expect(host.call({ name: 'constructor' }, requester)).toBeNull();
  });

  it("should refuse a served tool that takes a task tool's name", () => {
    expect(() => hostTaskTools(runtime, servedDefinitions({ tools: [tool('task_status', 'optional')] }))).toThrow(/task_status/);
  });
});
