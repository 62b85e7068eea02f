/**
 * The Vercel AI SDK adapter's implementation (`ai`, current major), loaded by `index.ts` once the
 * peer dependency is there.
 *
 * @module
 */
import { dynamicTool, jsonSchema, type ToolSet } from 'ai';
import { agentToolSpecs, followTool, resultText, updateText, type AgentTaskClient, type McpTaskToolsOptions } from '../agent-tools.js';
import { BACKGROUND_TOOL_SPECS, BackgroundTasks } from '../background-tasks.js';

// The other direction (an AI SDK tool served as a task tool), loaded with the rest once `ai` is there.
export { fromAiSdkTool } from './from-ai-sdk-tool.js';

type Json = Record<string, unknown>;
const schemaOf = (schema: Json) => jsonSchema<Json>(schema);

/**
 * The server's tools as an AI SDK `ToolSet`.
 *
 * In `await` mode (the default) each tool runs its MCP call as a task when the server can run it
 * as one and follows it: its status messages, progress, partial results and subtasks are
 * **preliminary tool results** (the `execute` is an async generator), the final output is the
 * result's text, a failed tool or task is a tool error (thrown: the model sees its message), and
 * the step's `abortSignal` cancels the task on the server. In `background` mode each tool starts
 * its task and answers at once; `task_status`, `task_result`, `task_cancel` and `task_respond`
 * follow it.
 *
 * @param client - a connected `TaskClient` or `TaskClientV2`
 * @param options - mode, a subset of tools, `onInputRequest`, caps
 * @example
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { mcpTaskTools } from 'mcp-task-actors/ai-sdk';
 * const tools = await mcpTaskTools(tasks, { tools: ['long_job'] });
 * const { text } = await generateText({ model, tools, prompt: 'Run the long job for 3 s.', stopWhen: stepCountIs(3) });
 * ```
 */
export async function mcpTaskTools(client: AgentTaskClient, options: McpTaskToolsOptions = {}): Promise<ToolSet> {
  const specs = await agentToolSpecs(client, options);
  const tools: ToolSet = {};
  if (options.mode === 'background') {
    const background = new BackgroundTasks(client, options);
    for (const spec of specs) {
      tools[spec.name] = dynamicTool({
        description: `${spec.description}\n(Starts a background task and answers at once with its taskId; follow it with task_status and task_result.)`,
        inputSchema: schemaOf(spec.inputSchema),
        execute: async (input) => background.start(spec.name, input as Json),
      });
    }
    for (const spec of BACKGROUND_TOOL_SPECS) {
      tools[spec.name] = dynamicTool({
        description: spec.description,
        inputSchema: schemaOf(spec.inputSchema),
        execute: async (input) => background.run(spec.name, input as { taskId: string }),
      });
    }
    return tools;
  }
  for (const spec of specs) {
    tools[spec.name] = dynamicTool({
      description: spec.description,
      inputSchema: schemaOf(spec.inputSchema),
      // Each yield is a preliminary result; the last one is the tool's output.
      execute: async function* (input, { abortSignal }) {
        const run = followTool(client, spec.name, input as Json, { signal: abortSignal, options });
        for (let step = await run.next(); ; step = await run.next()) {
          if (step.done) {
            yield resultText(step.value);
            return;
          }
          yield updateText(step.value);
        }
      },
    });
  }
  return tools;
}
