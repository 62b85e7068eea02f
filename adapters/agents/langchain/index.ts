/**
 * `mcp-task-actors/langchain`: an MCP server's tools as LangChain.js structured tools that run as
 * tasks (LangGraph's `ToolNode` and `createReactAgent` take them), with each update dispatched as
 * the custom event `mcp_task_update` and the run's signal cancelling the task.
 *
 * @example
 * ```ts
 * import { createReactAgent } from '@langchain/langgraph/prebuilt';
 * import { mcpTaskTools } from 'mcp-task-actors/langchain';
 * const agent = createReactAgent({ llm, tools: await mcpTaskTools(tasks) });
 * ```
 *
 * Needs the optional peer dependency `@langchain/core` (1.x); without it, importing this module
 * fails with a `MissingPeerDependencyError` that says so.
 *
 * @module
 */
import { loadWithPeer } from '../../peer-dependency.js';
import type * as Api from './langchain-tools.js';

export type { AgentInputHandler, AgentTaskClient, McpTaskToolsOptions } from '../agent-tools.js';
export { AgentToolError } from '../agent-tools.js';
export type { LangChainTaskToolsOptions, LangChainToolOptions, LangChainTool } from './langchain-tools.js';

const api: typeof Api = await loadWithPeer('@langchain/core', '^1.0.0', 'mcp-task-actors/langchain', () => import('./langchain-tools.js'));

/** See {@link Api.mcpTaskTools}. */
export const mcpTaskTools = api.mcpTaskTools;
/** See {@link Api.MCP_TASK_UPDATE_EVENT}. */
export const MCP_TASK_UPDATE_EVENT = api.MCP_TASK_UPDATE_EVENT;
/** See {@link Api.fromLangChainTool}. */
export const fromLangChainTool = api.fromLangChainTool;
