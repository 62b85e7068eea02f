/**
 * `attachTaskServer(mcp.server, …)`: the low-level `Server` of an `McpServer`, on both SDK lines.
 * Attaching there used to replace the McpServer's `tools/list` and `tools/call` without a word (its
 * tools vanished, calling one answered -32602 Unknown tool), and a tool registered afterwards threw
 * the SDK's "already exists", which does not point at the attach. Now both are refused, naming it.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer as McpServerV2, Server as ServerV2 } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTaskRuntime, defineTaskPrompt, defineTaskTool, type TaskRuntime } from '../../../index.js';
import { attachTaskServer } from '../../../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../../../adapters/mcp-server-v2/index.js';

const countWords = defineTaskTool({
  name: 'count_words',
  inputSchema: z.object({ text: z.string() }),
  run: async ({ text }) => ({ content: [{ type: 'text', text: `${text.split(/\s+/).length} words` }] }),
});
const report = defineTaskPrompt({ name: 'report', run: async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'r' } }] }) });
const pong = () => ({ content: [{ type: 'text' as const, text: 'pong' }] });

/** What these tests do with an McpServer of either line (their overloads differ, their use here does not). */
interface UserServer {
  readonly server: object;
  registerTool(name: string, config: { description: string }, cb: typeof pong): unknown;
  registerPrompt(name: string, config: object, cb: () => { messages: never[] }): unknown;
}

let runtime: TaskRuntime;
afterEach(async () => runtime?.dispose());

const lines = [
  {
    line: 'SDK v1',
    attach: 'attachTaskServer',
    mcp: (): UserServer => new McpServer({ name: 'mine', version: '1.0.0' }),
    low: () => new Server({ name: 'mine', version: '1.0.0' }, { capabilities: {} }),
    run: (server: object, options: Parameters<typeof attachTaskServer>[1]) => attachTaskServer(server as Server, options),
  },
  {
    line: 'SDK v2',
    attach: 'attachTaskServerV2',
    mcp: (): UserServer => new McpServerV2({ name: 'mine', version: '1.0.0' }),
    low: () => new ServerV2({ name: 'mine', version: '1.0.0' }, { capabilities: {} }),
    run: (server: object, options: Parameters<typeof attachTaskServerV2>[1]) => attachTaskServerV2(server as ServerV2, options),
  },
] as const;

describe.each(lines)('$line: attaching to the low-level Server of an McpServer', ({ attach, mcp: makeMcp, low, run }) => {
  it('is refused at attach time when the McpServer already has tools, saying to pass the McpServer', () => {
    runtime = createTaskRuntime();
    const mcp = makeMcp();
    mcp.registerTool('ping', { description: 'plain' }, pong);
    expect(() => run(mcp.server, { runtime, tools: [countWords] })).toThrow(new RegExp(`^${attach}: this Server already serves tools/(list|call).*Pass the McpServer itself, ${attach}\\(mcp, …\\), not mcp\\.server`));
  });

  it('refuses a tool the McpServer registers afterwards with a message that names the attach', () => {
    runtime = createTaskRuntime();
    const mcp = makeMcp();
    run(mcp.server, { runtime, tools: [countWords] });
    expect(() => mcp.registerTool('ping', { description: 'plain' }, pong)).toThrow(new RegExp(`^${attach} serves tools/list on this Server.*Pass the McpServer itself`));
  });

  it('leaves the kinds the definitions do not serve to the McpServer: its prompts register after a tools-only attach', () => {
    runtime = createTaskRuntime();
    const mcp = makeMcp();
    run(mcp.server, { runtime, tools: [countWords] });
    expect(() => mcp.registerPrompt('plain_prompt', {}, () => ({ messages: [] }))).not.toThrow();
  });

  it('refuses prompts when the McpServer serves prompts already, and not tools-only definitions', () => {
    runtime = createTaskRuntime();
    const mcp = makeMcp();
    mcp.registerPrompt('plain_prompt', {}, () => ({ messages: [] }));
    expect(() => run(mcp.server, { runtime, prompts: [report] })).toThrow(/already serves prompts\/(list|get)/);
    expect(() => run(mcp.server, { runtime, tools: [countWords] })).not.toThrow();
  });

  it('attaches to a fresh low-level Server, and refuses a second attach of the same definitions kinds', () => {
    runtime = createTaskRuntime();
    const server = low();
    expect(() => run(server, { runtime, tools: [countWords] })).not.toThrow();
    expect(() => run(server, { runtime, tools: [countWords] })).toThrow(/already serves tools\/(list|call)/);
  });
});
