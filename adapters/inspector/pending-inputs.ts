/**
 * The questions a task waits on (`input_required`), as its detail shows them: an elicitation's
 * message and requested schema, a sampling request's messages and system prompt, or any other
 * request's params. They are the requester's data, as results are: hidden by the same rule.
 *
 * @module
 */
import type { InputRequest, ObservedTask, TaskRuntime } from '../../runtime/index.js';
import type { PendingInputView } from './inspector.types.js';

/** Where the pending requests are read: the runtime's `pendingInputRequests`. */
export type PendingInputSource = TaskRuntime['pendingInputRequests'];

type Fields = Record<string, unknown>;

const record = (value: unknown): Fields => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {});

/**
 * One request as the detail shows it.
 *
 * @param request - the runtime's input request
 * @param showResults - whether this inspector shows the requesters' data (else only its kind)
 * @param reveal - whether credential-equivalent values are shown (else `_meta`, which may name a
 *   bearer task id, is left out of other requests' params)
 * @example
 * ```ts
 * const views = requests.map((r) => pendingInputView(r, false, false)); // [{ inputId, method, kind, redacted: true }]
 * ```
 */
export function pendingInputView(request: InputRequest, showResults: boolean, reveal: boolean): PendingInputView {
  const kind = request.method === 'elicitation/create' ? 'elicitation' : request.method === 'sampling/createMessage' ? 'sampling' : 'other';
  const base = { inputId: request.inputId, method: request.method, kind } as const;
  if (!showResults) return { ...base, redacted: true };
  const params = record(request.params);
  if (kind === 'elicitation') {
    return { ...base, redacted: false, ...(typeof params['message'] === 'string' && { message: params['message'] }), ...('requestedSchema' in params && { requestedSchema: params['requestedSchema'] }) };
  }
  if (kind === 'sampling') {
    return {
      ...base,
      redacted: false,
      messages: Array.isArray(params['messages']) ? params['messages'] : [],
      ...(typeof params['systemPrompt'] === 'string' && { systemPrompt: params['systemPrompt'] }),
    };
  }
  if (reveal) return { ...base, redacted: false, params: request.params };
  return { ...base, redacted: false, params: Object.fromEntries(Object.entries(params).filter(([name]) => name !== '_meta')) };
}

/**
 * The requests `task` waits on, oldest first: `[]` unless it is in `input_required`, and when the
 * runtime cannot say (it ended meanwhile, or has no `pendingInputRequests`).
 *
 * @example
 * ```ts
 * const inputs = await pendingInputs(task, runtime.pendingInputRequests.bind(runtime), showResults, reveal);
 * ```
 */
export async function pendingInputs(task: ObservedTask, source: PendingInputSource | undefined, showResults: boolean, reveal: boolean): Promise<PendingInputView[]> {
  if (task.status !== 'input_required' || !source) return [];
  let requests: InputRequest[];
  try {
    requests = await source(task.taskId, task.owner);
  } catch {
    // Ended or removed between the list and this read: nothing is asked any more.
    return [];
  }
  return requests.map((r) => pendingInputView(r, showResults, reveal));
}
