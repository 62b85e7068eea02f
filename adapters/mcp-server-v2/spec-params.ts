/**
 * The SDK v2 request checks a task answer must not skip. A task-augmented request is answered
 * ahead of the SDK's own handler wrapper (which would refuse a task as the result), so the
 * request checks that wrapper runs first are run here, with the SDK's own public schemas
 * (`specTypeSchemas` of `@modelcontextprotocol/server` or `client`): a request the SDK would
 * refuse (say `task: { ttl: null }`, or an `elicitation/create` without a message) never becomes
 * a task. SDK-free itself: the caller passes its package's schemas.
 *
 * @module
 */
import { JsonRpcCode, JsonRpcError } from '../wire/wire-errors.js';

/** One Standard Schema issue, as far as it is read here (`errors`: a union's branches, as zod gives them). */
interface Issue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[];
  readonly errors?: readonly (readonly Issue[])[];
}

// "Invalid input" of a union says nothing: the branch that came closest (fewest issues) does.
function mostTelling(issue: Issue): Issue {
  const branches = (issue.errors ?? []).filter((b) => b.length > 0);
  if (branches.length === 0) return issue;
  const closest = branches.reduce((a, b) => (b.length < a.length ? b : a));
  const inner = mostTelling(closest[0]!);
  return { message: inner.message, path: [...(issue.path ?? []), ...(inner.path ?? [])] };
}

/** `specTypeSchemas` of an SDK v2 package: Standard Schemas by spec type name. */
export type SpecSchemas = Readonly<Record<string, { readonly '~standard': { readonly validate: (value: unknown) => unknown } }>>;

/** The params type each taskable request is checked against. */
const SPEC_PARAMS: Readonly<Record<string, string>> = {
  'tools/call': 'CallToolRequestParams',
  'prompts/get': 'GetPromptRequestParams',
  'resources/read': 'ReadResourceRequestParams',
  'elicitation/create': 'ElicitRequestParams',
  'sampling/createMessage': 'CreateMessageRequestParams',
};

const pathText = (path: Issue['path']): string => (path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');

/**
 * Refuses `params` of `method` that the SDK's schema for it refuses.
 *
 * @throws JsonRpcError -32602 naming the first field that is wrong and why
 * @example
 * ```ts
 * import { specTypeSchemas } from '@modelcontextprotocol/server';
 * checkSpecParams(specTypeSchemas, 'tools/call', { name: 'sleep', task: { ttl: null } });
 * // throws -32602 "Invalid params for tools/call: task.ttl: Invalid input: expected number, received null"
 * ```
 */
export function checkSpecParams(schemas: SpecSchemas, method: string, params: Record<string, unknown>): void {
  const typeName = SPEC_PARAMS[method];
  const schema = typeName === undefined ? undefined : schemas[typeName];
  if (schema === undefined) return;
  const outcome = schema['~standard'].validate(params) as { issues?: readonly Issue[] } | Promise<unknown>;
  // The spec schemas are synchronous (the SDK says so); a promise would be a changed SDK: not ours to judge.
  if (outcome instanceof Promise || outcome.issues === undefined || outcome.issues.length === 0) return;
  const first = mostTelling(outcome.issues[0]!);
  const at = pathText(first.path);
  throw new JsonRpcError(JsonRpcCode.invalidParams, `Invalid params for ${method}: ${at === '' ? '' : `${at}: `}${first.message}`);
}
