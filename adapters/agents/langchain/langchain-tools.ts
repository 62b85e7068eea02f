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
import { ParkedCalls, type Interrupt } from './graph-interrupt.js';

export { fromLangChainTool } from './from-langchain-tool.js';
export type { LangChainToolOptions, LangChainTool } from './from-langchain-tool.js';

type Json = Record<string, unknown>;

/**
 * Options of the LangChain adapter: the common ones, and how a question a task asks reaches a
 * person.
 *
 * @example
 * ```ts
 * const options: LangChainTaskToolsOptions = { humanInTheLoop: 'interrupt' };
 * ```
 */
export interface LangChainTaskToolsOptions extends McpTaskToolsOptions {
  /**
   * `'interrupt'` (await mode, inside a LangGraph graph with a checkpointer): a question a task asks
   * interrupts the graph with `{ toolName, method, params }`; `new Command({ resume: answer })`
   * answers it (an elicitation's `{ action, content }`, a sampling result) and the same task goes on.
   * Needs `@langchain/langgraph`. `onInputRequest`, when given, answers instead.
   */
  readonly humanInTheLoop?: 'interrupt';
}

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
export async function mcpTaskTools(client: AgentTaskClient, options: LangChainTaskToolsOptions = {}): Promise<StructuredToolInterface[]> {
  const specs = await agentToolSpecs(client, options);
  const parked = new ParkedCalls();
  const interrupting = options.humanInTheLoop === 'interrupt' && options.onInputRequest === undefined;
  const interrupt = interrupting ? await loadInterrupt() : undefined;
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
        const toolCallId = config.toolCall?.id;
        if (interrupt !== undefined && toolCallId === undefined) throw new Error(`${spec.name}: humanInTheLoop 'interrupt' needs a tool call id (run the tool in a LangGraph graph)`);
        const run =
          interrupt !== undefined && toolCallId !== undefined
            ? parked.follow(client, spec.name, input, toolCallId, interrupt, options, config.signal)
            : followTool(client, spec.name, input, { signal: config.signal, options });
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

/** LangGraph's `interrupt`, loaded only when asked for (LangGraph is not needed otherwise). */
async function loadInterrupt(): Promise<Interrupt> {
  try {
    return (await import('@langchain/langgraph')).interrupt;
  } catch (error) {
    throw new Error("mcpTaskTools: humanInTheLoop 'interrupt' needs @langchain/langgraph (npm install @langchain/langgraph)", { cause: error });
  }
}
