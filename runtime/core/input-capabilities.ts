/**
 * Which input requests a task's requester can answer. MCP lets a server send `elicitation/create`,
 * `sampling/createMessage` or `roots/list` only to a client that declared the matching capability;
 * a task remembers what its requester declared when it was created (on 2026-07-28 in the creating
 * request, elsewhere at `initialize`), and its work's request for input that needs one it did not
 * declare is refused here, before the task shows `input_required` and before anything is sent.
 * Kept with the task's work (the NATS record too), so whichever worker runs it decides the same.
 *
 * @module
 */
import { InputUnsupportedError, InvalidArgumentError } from '../errors.js';

/**
 * The client capability each input request method needs. A method not listed here is not the
 * runtime's to judge: it is sent as asked.
 *
 * @example
 * ```ts
 * INPUT_CAPABILITIES['elicitation/create']; // 'elicitation'
 * ```
 */
export const INPUT_CAPABILITIES: Readonly<Record<string, string>> = Object.freeze({
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
});

/** By method, without the prototype's keys (`constructor` is no method's capability). */
const NEEDED: ReadonlyMap<string, string> = new Map(Object.entries(INPUT_CAPABILITIES));
const GATING: ReadonlySet<string> = new Set(NEEDED.values());

/**
 * The capabilities among those input requests need that a requester declared, from its client
 * capabilities as the wire gives them (`initialize`'s `capabilities`, or 2026-07-28's
 * `_meta["io.modelcontextprotocol/clientCapabilities"]`): what `CreateTaskOptions.requesterCapabilities`
 * takes. A capability counts as declared when present with any value but `undefined`/`null`.
 *
 * @param clientCapabilities - the requester's client capabilities; `undefined` when not known
 * @returns the declared ones, sorted; `undefined` when not known (nothing is then refused)
 * @example
 * ```ts
 * declaredInputCapabilities({ sampling: {}, roots: { listChanged: true } }); // ['roots', 'sampling']
 * declaredInputCapabilities(undefined); // undefined
 * ```
 */
export function declaredInputCapabilities(clientCapabilities: Readonly<Record<string, unknown>> | null | undefined): readonly string[] | undefined {
  if (clientCapabilities === undefined || clientCapabilities === null) return undefined;
  return [...GATING].filter((c) => clientCapabilities[c] !== undefined && clientCapabilities[c] !== null).sort();
}

/**
 * Checks `CreateTaskOptions.requesterCapabilities` and keeps only what matters to input requests,
 * so a task's record holds a few short names at most.
 *
 * @throws InvalidArgumentError when it is not an array of strings
 * @example
 * ```ts
 * keptInputCapabilities(['sampling', 'tasks']); // ['sampling']
 * ```
 */
export function keptInputCapabilities(declared: unknown): readonly string[] | undefined {
  if (declared === undefined) return undefined;
  if (!Array.isArray(declared) || declared.some((c) => typeof c !== 'string')) {
    throw new InvalidArgumentError('requesterCapabilities must be an array of capability names (e.g. ["elicitation"]) when given');
  }
  return [...new Set((declared as string[]).filter((c) => GATING.has(c)))].sort();
}

/**
 * Whether a task whose requester declared `declared` may ask it `method`: `null` when it may,
 * else the error the work gets at once.
 *
 * @param declared - what the task's requester declared; `undefined` when not known (a task
 *   started in process, or created before tasks kept it): every request may be sent
 * @example
 * ```ts
 * refusedInput('elicitation/create', ['sampling']); // InputUnsupportedError naming 'elicitation'
 * refusedInput('elicitation/create', undefined);     // null
 * ```
 */
export function refusedInput(method: string, declared: readonly string[] | undefined): InputUnsupportedError | null {
  if (declared === undefined) return null;
  const capability = NEEDED.get(method);
  return capability === undefined || declared.includes(capability) ? null : new InputUnsupportedError(capability, method);
}
