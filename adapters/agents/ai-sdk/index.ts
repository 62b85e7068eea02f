/**
 * `mcp-task-actors/ai-sdk`: an MCP server's tools as Vercel AI SDK tools that run as tasks, with
 * progress as preliminary tool results and the step's abort cancelling the task; and the other
 * direction, an AI SDK tool served as a task tool (`fromAiSdkTool`).
 *
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { mcpTaskTools } from 'mcp-task-actors/ai-sdk';
 * const { text } = await generateText({ model, tools: await mcpTaskTools(tasks), prompt, stopWhen: stepCountIs(5) });
 * ```
 *
 * Needs the optional peer dependency `ai` (current major); without it, importing this module
 * fails with a `MissingPeerDependencyError` that says so.
 *
 * @module
 */
import { loadWithPeer } from '../../peer-dependency.js';
import type * as Api from './ai-sdk-tools.js';

export type { AgentInputHandler, AgentTaskClient, McpTaskToolsOptions } from '../agent-tools.js';
export { AgentToolError } from '../agent-tools.js';
export type { AiSdkToolOptions } from './from-ai-sdk-tool.js';
export type { FrameworkToolOptions } from '../framework-tool.js';

const api: typeof Api = await loadWithPeer('ai', '^7.0.0', 'mcp-task-actors/ai-sdk', () => import('./ai-sdk-tools.js'));

/** See {@link Api.mcpTaskTools}. */
export const mcpTaskTools = api.mcpTaskTools;

/** See {@link Api.fromAiSdkTool}. */
export const fromAiSdkTool = api.fromAiSdkTool;
