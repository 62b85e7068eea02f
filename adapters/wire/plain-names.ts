/**
 * One name serves one thing: a tool, prompt or resource registered on the user's own `McpServer`
 * (either SDK line) and a task definition may not share a name (a resource: a URI). The rule and
 * its error, shared by both SDK adapters; each finds the names the way its SDK keeps them.
 *
 * @module
 */

/** The three kinds a server serves, as named in their list methods. */
export type PlainKind = 'tools' | 'prompts' | 'resources';

/** The names the task definitions take, per kind (resources by URI). */
export type TaskNames = Readonly<Record<PlainKind, ReadonlySet<string>>>;

/** Per kind: the public `McpServer` methods that register one, and its call method. */
export const PLAIN_KINDS: Readonly<Record<PlainKind, { readonly noun: string; readonly list: string; readonly call: string; readonly registers: readonly string[] }>> = {
  tools: { noun: 'tool', list: 'tools/list', call: 'tools/call', registers: ['registerTool', 'tool'] },
  prompts: { noun: 'prompt', list: 'prompts/list', call: 'prompts/get', registers: ['registerPrompt', 'prompt'] },
  resources: { noun: 'resource', list: 'resources/list', call: 'resources/read', registers: ['registerResource', 'resource'] },
};

/**
 * The error for a name both the `McpServer` and a task definition would serve.
 *
 * @param attach - the attach function, named in the message
 * @example
 * ```ts
 * throw nameClash('attachTaskServer', 'tools', 'sleep', 'registered');
 * ```
 */
export function nameClash(attach: string, kind: PlainKind, name: string, when: 'registered' | 'being registered'): Error {
  const { noun } = PLAIN_KINDS[kind];
  return new Error(`${attach}: ${noun} '${name}' is ${when} on the McpServer and is also a task ${noun}; one name serves one ${noun} (rename one of them)`);
}

/**
 * Refuses, at attach time, a name already registered on the `McpServer`, and wraps its public
 * registration methods so that one registered later is refused too. Tools and prompts are named
 * by their first argument, resources by their second (the URI).
 *
 * @param registered - per kind the task definitions serve, the names the `McpServer` has now
 * @throws Error (see {@link nameClash}) naming the first name both would serve
 * @example
 * ```ts
 * guardPlainNames('attachTaskServer', mcp, names, { tools: Object.keys(registeredTools) });
 * ```
 */
export function guardPlainNames(attach: string, mcp: object, names: TaskNames, registered: Partial<Record<PlainKind, readonly string[]>>): void {
  for (const kind of Object.keys(PLAIN_KINDS) as PlainKind[]) {
    const ours = names[kind];
    if (ours.size === 0) continue;
    for (const name of registered[kind] ?? []) if (ours.has(name)) throw nameClash(attach, kind, name, 'registered');
    for (const method of PLAIN_KINDS[kind].registers) {
      const original: unknown = Reflect.get(mcp, method);
      if (typeof original !== 'function') continue;
      Reflect.set(mcp, method, (...args: unknown[]) => {
        const name = kind === 'resources' ? args[1] : args[0];
        if (typeof name === 'string' && ours.has(name)) throw nameClash(attach, kind, name, 'being registered');
        return (original as (...a: unknown[]) => unknown).apply(mcp, args);
      });
    }
  }
}
