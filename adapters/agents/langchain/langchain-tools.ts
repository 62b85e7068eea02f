/**
 * The LangChain.js adapter's implementation (`@langchain/core` tools, usable in LangGraph's
 * `ToolNode` and `createReactAgent`), loaded by `index.ts` once the peer dependency is there.
 *
 * @module
 */
import { tool, type StructuredToolInterface, type ToolRunnableConfig } from '@langchain/core/tools';
import { dispatchCustomEvent } from '@langchain/core/callbacks/dispatch';
import { agentToolSpecs, followTool, resultText, updateText, type AgentTaskClient, type McpTaskToolsOptions } from '../agent-tools.js';
import { BACKGROUND_TOOL_SPECS, BackgroundTasks } from '../background-tasks.js';

type Json = Record<string, unknown>;

/** The custom event each update of a running task is dispatched as (`streamEvents`, callbacks). */
export const MCP_TASK_UPDATE_EVENT = 'mcp_task_update';

/**
 * The server's tools as LangChain structured tools.
 *
 * In `await` mode (the default) each tool runs its MCP call as a task when the server can run it
 * as one and follows it: each status change, progress, partial result and subtask is dispatched
 * as the custom event `mcp_task_update` (`{ toolName, taskId, update, text }`: see it with
 * `streamEvents` or a callback handler's `handleCustomEvent`); the result's text is the tool's
 * output; a failed tool or task throws, which LangGraph's `ToolNode` turns into an error
 * `ToolMessage` the model reads; the run's `signal` cancels the task on the server. In
 * `background` mode each tool starts its task and answers at once; `task_status`, `task_result`,
 * `task_cancel` and `task_respond` follow it.
 *
 * @param client - a connected `TaskClient` or `TaskClientV2`
 * @param options - mode, a subset of tools, `onInputRequest`, caps
 * @example
 * ```ts
 * import { ToolNode } from '@langchain/langgraph/prebuilt';
 * import { mcpTaskTools } from 'mcp-task-actors/langchain';
 * const toolNode = new ToolNode(await mcpTaskTools(tasks));
 * ```
 */
export async function mcpTaskTools(client: AgentTaskClient, options: McpTaskToolsOptions = {}): Promise<StructuredToolInterface[]> {
  const specs = await agentToolSpecs(client, options);
  if (options.mode === 'background') {
    const background = new BackgroundTasks(client, options);
    return [
      ...specs.map((spec) =>
        tool(async (input: Json) => background.start(spec.name, input), {
          name: spec.name,
          description: `${spec.description}\n(Starts a background task and answers at once with its taskId; follow it with task_status and task_result.)`,
          schema: spec.inputSchema,
        }),
      ),
      ...BACKGROUND_TOOL_SPECS.map((spec) =>
        tool(async (input: Json) => background.run(spec.name, input as { taskId: string }), { name: spec.name, description: spec.description, schema: spec.inputSchema }),
      ),
    ] as StructuredToolInterface[];
  }
  return specs.map((spec) =>
    tool(
      async (input: Json, config: ToolRunnableConfig) => {
        const run = followTool(client, spec.name, input, { signal: config.signal, options });
        let taskId: string | undefined;
        for (let step = await run.next(); ; step = await run.next()) {
          if (step.done) return resultText(step.value);
          if (step.value.type === 'status') taskId = step.value.task.taskId;
          await dispatchCustomEvent(MCP_TASK_UPDATE_EVENT, { toolName: spec.name, taskId, update: step.value, text: updateText(step.value) }, config);
        }
      },
      { name: spec.name, description: spec.description, schema: spec.inputSchema },
    ),
  ) as StructuredToolInterface[];
}
