/**
 * `mcp-task-actors/openai-agents`: an MCP server's tools as OpenAI Agents SDK function tools that
 * run as tasks, the run's abort cancelling the task and a failed task a tool error the model reads.
 *
 * @example
 * ```ts
 * import { Agent, run } from '@openai/agents';
 * import { mcpTaskTools } from 'mcp-task-actors/openai-agents';
 * const agent = new Agent({ name: 'worker', tools: await mcpTaskTools(tasks) });
 * const { finalOutput } = await run(agent, 'Sleep 100 ms.');
 * ```
 *
 * Needs the optional peer dependency `@openai/agents` (0.20 or later 0.x); without it, importing
 * this module fails with a `MissingPeerDependencyError` that says so.
 *
 * @module
 */
import { loadWithPeer } from '../../peer-dependency.js';
import type * as Api from './openai-agents-tools.js';

export type { AgentInputHandler, AgentTaskClient, McpTaskToolsOptions } from '../agent-tools.js';
export type { McpFunctionTool } from './openai-agents-tools.js';
export { AgentToolError } from '../agent-tools.js';

const api: typeof Api = await loadWithPeer('@openai/agents', '>=0.20.0 <1', 'mcp-task-actors/openai-agents', () => import('./openai-agents-tools.js'));

/** See {@link Api.mcpTaskTools}. */
export const mcpTaskTools = api.mcpTaskTools;
