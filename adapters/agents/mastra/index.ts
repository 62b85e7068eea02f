/**
 * `mcp-task-actors/mastra`: an MCP server's tools as Mastra tools that run as tasks, with progress
 * written to the tool's stream and the agent's abort cancelling the task.
 *
 * @example
 * ```ts
 * import { Agent } from '@mastra/core/agent';
 * import { mcpTaskTools } from 'mcp-task-actors/mastra';
 * const agent = new Agent({ id: 'worker', name: 'worker', instructions: 'Run jobs.', model, tools: await mcpTaskTools(tasks) });
 * const { text } = await agent.generate('Sleep 100 ms.', { maxSteps: 3 });
 * ```
 *
 * Needs the optional peer dependency `@mastra/core` (1.x); without it, importing this module fails
 * with a `MissingPeerDependencyError` that says so.
 *
 * @module
 */
import { loadWithPeer } from '../../peer-dependency.js';
import type * as Api from './mastra-tools.js';

export type { AgentInputHandler, AgentTaskClient, McpTaskToolsOptions } from '../agent-tools.js';
export type { McpMastraTool } from './mastra-tools.js';
export { AgentToolError } from '../agent-tools.js';

const api: typeof Api = await loadWithPeer('@mastra/core', '^1.0.0', 'mcp-task-actors/mastra', () => import('./mastra-tools.js'));

/** See {@link Api.mcpTaskTools}. */
export const mcpTaskTools = api.mcpTaskTools;
