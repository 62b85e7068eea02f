/**
 * Registers the work of a server's definitions with the runtime, so that tasks can run it
 * whichever wire (and whichever SDK) created them. SDK-free.
 *
 * @module
 */
import { TaskFailure, type TaskRuntime } from '../../runtime/index.js';
import { SPEC_2025_11_25 } from '../dialects/2025-11-25/index.js';
import type { TaskServerDefinitions, TaskToolDefinition } from './definitions.js';
import { taskWorkContext as toWork } from './task-work-context.js';
import { keepingWireErrors } from './wire-errors.js';
import { registerWorkOnce } from './work-registry.js';

type AnyTool = TaskToolDefinition<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each tool has its own shape
type ToolResult = Awaited<ReturnType<AnyTool['run']>>;

/** The first text of a tool result, to say why a 2025-11-25 task failed. */
function errorText(result: ToolResult): string {
  const first = result.content.find((c) => c.type === 'text');
  const text = first?.type === 'text' ? first.text : 'no detail';
  return `Tool reported an error: ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`;
}

/**
 * Registers the definitions' work with the runtime, so that tasks can run it (whichever wire
 * created them). Each definition is registered once per runtime: a server made for a later
 * session never replaces an earlier session's definitions (see `work-registry.ts`).
 *
 * @example
 * ```ts
 * registerWork(runtime, [sleepTool], {});
 * ```
 */
export function registerWork(runtime: TaskRuntime, tools: Iterable<AnyTool>, options: TaskServerDefinitions): void {
  const list = [...tools];
  // A tool's work may start subtasks of the server's other tools: their schemas check the arguments.
  const byName = new Map(list.map((t) => [t.name, t]));
  for (const tool of list) {
    registerWorkOnce(runtime, 'tools/call', tool.name, tool, (name) =>
      runtime.registerHandler(
        name,
        keepingWireErrors(async (args, ctx) => {
          const result = await tool.run(args as never, toWork(ctx, byName));
          // In 2025-11-25 a tool result with isError ends the task failed; the result is kept for tasks/result.
          if (result.isError === true && ctx.dialect === SPEC_2025_11_25) throw new TaskFailure(errorText(result), { result });
          return result;
        }),
        tool.retry === undefined ? {} : { retry: tool.retry },
      ),
    );
  }
  for (const prompt of options.prompts ?? []) {
    registerWorkOnce(runtime, 'prompts/get', prompt.name, prompt, (name) =>
      runtime.registerHandler(name, keepingWireErrors((args, ctx) => prompt.run(args as Record<string, string>, toWork(ctx)))),
    );
  }
  for (const resource of options.resources ?? []) {
    registerWorkOnce(runtime, 'resources/read', resource.uri, resource, (name) =>
      runtime.registerHandler(name, keepingWireErrors((_params, ctx) => resource.run(resource.uri, toWork(ctx)))),
    );
  }
}

/**
 * Registers the work of tool, prompt and resource definitions with a runtime, without a server:
 * what a worker process of a NATS task space does to run the same definitions its front nodes
 * serve (the handler names are the ones every node of the cluster uses, `tools/call:<name>`).
 * A worker node announces these names with its heartbeat; a front node tells from them a task
 * no live worker serves.
 *
 * @param runtime - the runtime (a NATS runtime with role `worker` or `both`)
 * @param definitions - the tools, prompts and resources whose work this process runs
 * @example
 * ```ts
 * const runtime = await createNatsTaskRuntime({ nats: { servers: 'nats://127.0.0.1:4222' }, role: 'worker' });
 * registerTaskWork(runtime, { tools: [countWords] });
 * ```
 */
export function registerTaskWork(runtime: TaskRuntime, definitions: TaskServerDefinitions): void {
  registerWork(runtime, definitions.tools ?? [], definitions);
}
