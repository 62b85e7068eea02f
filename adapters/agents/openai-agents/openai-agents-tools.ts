/**
 * The OpenAI Agents SDK adapter's implementation (`@openai/agents`), loaded by `index.ts` once the
 * peer dependency is there.
 *
 * @module
 */
import { tool, type FunctionTool, type JsonSchemaDefinition } from '@openai/agents';
import { agentToolSpecs, followTool, resultText, type AgentTaskClient, type McpTaskToolsOptions } from '../agent-tools.js';
import { BACKGROUND_TOOL_SPECS, BackgroundTasks } from '../background-tasks.js';

type Json = Record<string, unknown>;
// The SDK's non-strict JSON Schema type (not exported by name).
type NonStrictSchema = Extract<JsonSchemaDefinition['schema'], { additionalProperties: true }>;
/** An OpenAI Agents function tool as `mcpTaskTools` makes it (JSON Schema arguments, text output). */
export type McpFunctionTool = FunctionTool<unknown, NonStrictSchema, unknown>;

// The server's JSON Schema goes to the model as it is: `strict: false` keeps the SDK from
// rewriting it into OpenAI's strict subset (which would make every optional argument required).
const parametersOf = (schema: Json) => schema as unknown as NonStrictSchema;
// The SDK's default error function hides the message ("An error occurred…"); a failed task's
// message is what the model needs to decide what to do next.
const errorText = (_context: unknown, error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The server's tools as OpenAI Agents SDK function tools.
 *
 * In `await` mode (the default) each tool runs its MCP call as a task when the server can run it
 * as one and follows it to its result: the output is the result's text, a failed, cancelled or
 * over-cap call is a tool error whose message the model reads, and the run's `signal` (which the
 * runner hands each function tool) cancels the task on the server. Function tools have no channel
 * for progress, so a task's status messages and partial results are not shown in await mode; use
 * `background` mode, where each tool starts its task and answers at once and `task_status`,
 * `task_result`, `task_cancel` and `task_respond` follow it.
 *
 * @param client - a connected `TaskClient` or `TaskClientV2`
 * @param options - mode, a subset of tools, `onInputRequest`, caps
 * @throws Error naming a requested tool the server does not list
 * @example
 * ```ts
 * import { Agent, run } from '@openai/agents';
 * import { mcpTaskTools } from 'mcp-task-actors/openai-agents';
 * const agent = new Agent({ name: 'worker', tools: await mcpTaskTools(tasks, { tools: ['long_job'] }) });
 * const { finalOutput } = await run(agent, 'Run the long job for 3 s.');
 * ```
 */
export async function mcpTaskTools(client: AgentTaskClient, options: McpTaskToolsOptions = {}): Promise<McpFunctionTool[]> {
  const specs = await agentToolSpecs(client, options);
  const make = (name: string, description: string, schema: Json, execute: (input: Json, signal: AbortSignal | undefined) => Promise<string>): McpFunctionTool =>
    tool({
      name,
      description,
      parameters: parametersOf(schema),
      strict: false,
      errorFunction: errorText,
      execute: async (input, _context, details) => execute((input ?? {}) as Json, details?.signal),
    });
  if (options.mode === 'background') {
    const background = new BackgroundTasks(client, options);
    return [
      ...specs.map((spec) =>
        make(spec.name, `${spec.description}\n(Starts a background task and answers at once with its taskId; follow it with task_status and task_result.)`, spec.inputSchema, (input) =>
          background.start(spec.name, input),
        ),
      ),
      ...BACKGROUND_TOOL_SPECS.map((spec) => make(spec.name, spec.description, spec.inputSchema, (input) => background.run(spec.name, input as { taskId: string }))),
    ];
  }
  return specs.map((spec) =>
    make(spec.name, spec.description, spec.inputSchema, async (input, signal) => {
      const run = followTool(client, spec.name, input, { signal, options });
      for (let step = await run.next(); ; step = await run.next()) if (step.done) return resultText(step.value);
    }),
  );
}
