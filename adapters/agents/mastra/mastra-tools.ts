/**
 * The Mastra adapter's implementation (`@mastra/core` 1.x), loaded by `index.ts` once the peer
 * dependency is there.
 *
 * @module
 */
import type { PublicSchema } from '@mastra/core/schema';
import { createTool, type Tool, type ToolExecutionContext } from '@mastra/core/tools';
import { agentToolSpecs, followTool, resultText, updateText, type AgentTaskClient, type McpTaskToolsOptions } from '../agent-tools.js';
import { BACKGROUND_TOOL_SPECS, BackgroundTasks } from '../background-tasks.js';

type Json = Record<string, unknown>;
/**
 * A Mastra tool as `mcpTaskTools` makes it: its arguments are checked against the server's JSON
 * Schema at run time, so TypeScript knows them (and the text output) only as `unknown`.
 */
export type McpMastraTool = Tool;

/**
 * The server's tools as Mastra tools, keyed by name (what `new Agent({ tools })` takes).
 *
 * In `await` mode (the default) each tool runs its MCP call as a task when the server can run it
 * as one and follows it to its result: the output is the result's text, a failed, cancelled or
 * over-cap call is thrown (Mastra hands the model a tool error with its message), the agent's
 * `abortSignal` cancels the task on the server, and each status message, progress notice and
 * partial result is written to the tool's stream (`writer`), so an `agent.stream()` caller sees
 * them as `tool-output` chunks. In `background` mode each tool starts its task and answers at once;
 * `task_status`, `task_result`, `task_cancel` and `task_respond` follow it.
 *
 * @param client - a connected `TaskClient` or `TaskClientV2`
 * @param options - mode, a subset of tools, `onInputRequest`, caps
 * @throws Error naming a requested tool the server does not list
 * @example
 * ```ts
 * import { Agent } from '@mastra/core/agent';
 * import { mcpTaskTools } from 'mcp-task-actors/mastra';
 * const agent = new Agent({ id: 'worker', name: 'worker', instructions: 'Run jobs.', model, tools: await mcpTaskTools(tasks) });
 * const { text } = await agent.generate('Run the long job for 3 s.', { maxSteps: 3 });
 * ```
 */
export async function mcpTaskTools(client: AgentTaskClient, options: McpTaskToolsOptions = {}): Promise<Record<string, McpMastraTool>> {
  const specs = await agentToolSpecs(client, options);
  const tools: Record<string, McpMastraTool> = {};
  const add = (id: string, description: string, schema: Json, execute: (input: Json, context: ToolExecutionContext) => Promise<string>): void => {
    // Mastra takes a JSON Schema as it is (no zod needed): the server's own schema reaches the model.
    tools[id] = createTool({ id, description, inputSchema: schema as PublicSchema<Json>, execute: (input, context) => execute((input ?? {}) as Json, context) });
  };
  if (options.mode === 'background') {
    const background = new BackgroundTasks(client, options);
    for (const spec of specs) {
      add(spec.name, `${spec.description}\n(Starts a background task and answers at once with its taskId; follow it with task_status and task_result.)`, spec.inputSchema, (input) => background.start(spec.name, input));
    }
    for (const spec of BACKGROUND_TOOL_SPECS) add(spec.name, spec.description, spec.inputSchema, (input) => background.run(spec.name, input as { taskId: string }));
    return tools;
  }
  for (const spec of specs) {
    add(spec.name, spec.description, spec.inputSchema, async (input, context) => {
      const run = followTool(client, spec.name, input, { signal: context.abortSignal, options });
      for (let step = await run.next(); ; step = await run.next()) {
        if (step.done) return resultText(step.value);
        await context.writer?.write({ type: 'task-update', toolName: spec.name, text: updateText(step.value) });
      }
    });
  }
  return tools;
}
