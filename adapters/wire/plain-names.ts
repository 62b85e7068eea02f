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

/** What this rule asks of either SDK line's low-level `Server`: its public handler check. */
export interface HandlerSlots {
  /** Throws when a request handler for `method` is installed already (both SDK lines have it). */
  assertCanSetRequestHandler(method: string): void;
}

/**
 * Claims, on a low-level `Server` (not an `McpServer`), the list and call methods of every kind
 * the task definitions serve. A method the `Server` serves already is refused: the handler there
 * (often an `McpServer`'s, when `mcp.server` was passed) would be replaced, and the tools behind it
 * would vanish. Once claimed, an `McpServer` around this `Server` that later installs its own
 * handlers for a claimed method (its first `registerTool`, say) is refused with a message that
 * names the attach, not only the SDK's "already exists".
 *
 * @param attach - the attach function, named in the messages
 * @throws Error naming the first method the `Server` already serves, and saying to pass the McpServer
 * @example
 * ```ts
 * claimPlainMethods('attachTaskServer', server, { tools: new Set(['sleep']), prompts: new Set(), resources: new Set() });
 * ```
 */
export function claimPlainMethods(attach: string, server: HandlerSlots, names: TaskNames): void {
  const claimed = new Map<string, PlainKind>();
  for (const kind of Object.keys(PLAIN_KINDS) as PlainKind[]) {
    if (names[kind].size === 0) continue;
    for (const method of [PLAIN_KINDS[kind].list, PLAIN_KINDS[kind].call]) {
      try {
        server.assertCanSetRequestHandler(method);
      } catch {
        const { noun } = PLAIN_KINDS[kind];
        throw new Error(
          `${attach}: this Server already serves ${method}, and the task ${noun}s would replace that handler (an McpServer's own ${noun}s would vanish). ` +
            `Pass the McpServer itself, ${attach}(mcp, …), not mcp.server: its ${noun}s stay served beside the task ones`,
        );
      }
      claimed.set(method, kind);
    }
  }
  if (claimed.size === 0) return;
  const original = server.assertCanSetRequestHandler.bind(server);
  server.assertCanSetRequestHandler = (method: string): void => {
    const kind = claimed.get(method);
    if (kind === undefined) return original(method);
    const { noun } = PLAIN_KINDS[kind];
    throw new Error(
      `${attach} serves ${method} on this Server, so the McpServer around it cannot serve its own ${noun}s. ` +
        `Pass the McpServer itself, ${attach}(mcp, …), not mcp.server: its ${noun}s are then served beside the task ones, registered before or after`,
    );
  };
}
