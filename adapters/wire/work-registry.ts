/**
 * Which runtime handler runs which definition's work. An HTTP endpoint makes one SDK server per
 * session, all over one runtime; registering every server's definitions again on each
 * `initialize` would let the newest session's definitions replace every other session's (a tool
 * whose `run` closes over per-session state would then run with another session's state). So each
 * definition's work is registered once per runtime, and a task runs the work of the server that
 * created it.
 *
 * A definition is known by its `run` function. The first one under a name gets the plain handler
 * name (`tools/call:sleep`): the name every node of a NATS cluster registers for the same
 * definitions, so a front node's task runs on any worker. A different `run` under a name already
 * taken gets a name of its own in the memory backend (`tools/call:sleep` + `\u00012`), kept as long
 * as the runtime (its tasks may run any time): a server that makes new closures for every session
 * registers one handler per session. On a cluster no other node could run such a name, so there
 * every definition of a name shares the plain one, and the first registered wins.
 *
 * @module
 */
import type { TaskRuntime } from '../../runtime/index.js';

/** A tool, prompt or resource definition; its `run` identifies its work (compared by identity only). */
interface Definition {
  readonly run: unknown;
}

/** Per runtime: handler base name → each distinct `run` registered under it → its handler name. */
const registries = new WeakMap<object, Map<string, Map<unknown, string>>>();

/** The runtime handler name of a method's work for one label (a tool name, prompt name or resource URI). */
const baseName = (method: string, label: string): string => `${method}:${label}`;

/**
 * Registers `run` with the runtime under a handler name, unless it is registered already: the
 * same `run` is registered once however many servers share it.
 *
 * @param runtime - the shared runtime
 * @param method - `tools/call`, `prompts/get` or `resources/read`
 * @param label - the tool or prompt name, or the resource URI
 * @param definition - the definition; its `run` identifies it
 * @param register - registers the handler under the given name (called at most once per `run`)
 * @returns the handler name tasks of this definition are created with
 * @example
 * ```ts
 * registerWorkOnce(runtime, 'tools/call', 'sleep', sleepTool, (name) => runtime.registerHandler(name, handler));
 * ```
 */
export function registerWorkOnce(runtime: TaskRuntime, method: string, label: string, definition: Definition, register: (name: string) => void): string {
  const { run } = definition;
  let byBase = registries.get(runtime);
  if (!byBase) registries.set(runtime, (byBase = new Map<string, Map<unknown, string>>()));
  const base = baseName(method, label);
  let byRun = byBase.get(base);
  if (!byRun) byBase.set(base, (byRun = new Map<unknown, string>()));
  const known = byRun.get(run);
  if (known !== undefined) return known;
  // On a cluster (a runtime with a node id) another node could never run a name only this process
  // knows, so there every definition of a name shares the plain one: the first registered wins.
  if (byRun.size > 0 && 'nodeId' in runtime) {
    const first = byRun.values().next().value!;
    byRun.set(run, first);
    return first;
  }
  // \u0001 cannot be part of a tool name the requester sends, so no real tool is ever shadowed.
  const name = byRun.size === 0 ? base : `${base}\u0001${byRun.size + 1}`;
  byRun.set(run, name);
  register(name);
  return name;
}

/**
 * The handler name a task of this definition is created with (see {@link registerWorkOnce}).
 * A definition never registered here (a node that serves but does not run work) uses the plain name.
 *
 * @example
 * ```ts
 * runtime.create({ …, handler: workHandlerName(runtime, 'tools/call', tool.name, tool) });
 * ```
 */
export function workHandlerName(runtime: TaskRuntime, method: string, label: string, definition: Definition): string {
  const base = baseName(method, label);
  return registries.get(runtime)?.get(base)?.get(definition.run) ?? base;
}

/**
 * The handler names of every definition registered with `runtime` through {@link registerWorkOnce}
 * (`tools/call:sleep`…), one per name, sorted: what a node says it serves (`mcp-tasks status`).
 *
 * @example
 * ```ts
 * registeredWork(runtime); // ['prompts/get:greeting', 'tools/call:sleep', …]
 * ```
 */
export function registeredWork(runtime: object): string[] {
  // Any object: a runtime seen through a narrower type is still the key it was registered under.
  return [...(registries.get(runtime)?.keys() ?? [])].sort();
}
