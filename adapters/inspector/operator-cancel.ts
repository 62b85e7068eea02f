/**
 * `POST /api/tasks/:key/cancel`: an operator cancels a task, whoever owns it, through the runtime
 * (on NATS, a front cancels a task a worker runs), and the audit says who did. It needs an
 * operator's token as `Authorization: Bearer` (a token in the URL would end up in histories and
 * logs, and a form or link could carry it), and a browser's request from this page's own origin.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isTerminalStatus } from '../../machines/index.js';
import { AuditEvent } from '../../runtime/audit/audit.types.js';
import type { Logger } from '../../runtime/logger.js';
import { shownSession, shownTaskId } from '../../runtime/secrets.js';
import { TaskExpiredError, TaskNotFoundError, TaskTerminalError } from '../../runtime/errors.js';
import type { ObservedTask, TaskObserver, TaskRuntime } from '../../runtime/index.js';
import { BodyRefusal, PendingBodies, readBody } from '../wire/http-body.js';
import type { InspectorAccess } from './access.js';
import { listedTask } from './listed-task.js';
import { json, unauthorized } from './reply.js';

/** The largest body of an action (`{ "reason": … }`), in bytes. */
export const MAX_ACTION_BODY_BYTES = 4_096;
/** The longest `reason` kept, in characters. */
export const MAX_REASON_LENGTH = 500;

/** What the action needs. */
export interface OperatorCancelContext {
  readonly access: InspectorAccess;
  readonly observer: TaskObserver;
  readonly cancel?: TaskRuntime['cancel'] | undefined;
  readonly audit?: Logger | undefined;
}

/** The message of the 403 of an inspector that has no operators: how to give it one. */
export const NO_OPERATORS = 'Forbidden: this inspector has no operators, so it takes no action: start it with --inspect-operator TOKEN=NAME (attachInspector: operators: { TOKEN: NAME })';

// Unfinished action bodies held at once, across requests: tiny bodies, a small cap.
const pending = new PendingBodies(64 * MAX_ACTION_BODY_BYTES);

async function reasonOf(req: IncomingMessage): Promise<{ reason: string | null } | { status: number; error: string }> {
  let body: string;
  try {
    body = (await readBody(req, { maxBytes: MAX_ACTION_BODY_BYTES, pending })).toString('utf8');
  } catch (error) {
    if (error instanceof BodyRefusal) return { status: error.status, error: error.status === 413 ? `Payload Too Large: an action's body is at most ${MAX_ACTION_BODY_BYTES} bytes` : error.message };
    throw error;
  }
  if (body.trim() === '') return { reason: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { status: 400, error: 'Bad Request: the body must be JSON: { "reason": string } (or empty)' };
  }
  const reason = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as { reason?: unknown }).reason : 0;
  if (reason === undefined || reason === null) return { reason: null };
  if (typeof reason !== 'string') return { status: 400, error: 'Bad Request: the body must be JSON: { "reason": string } (or empty)' };
  if (reason.length > MAX_REASON_LENGTH) return { status: 400, error: `Bad Request: 'reason' is longer than ${MAX_REASON_LENGTH} characters` };
  return { reason };
}

/**
 * Serves `POST /api/tasks/:key/cancel` (the request already passed the read access check).
 * Answers 200 with the task as listed, 401 without an operator's Bearer token, 403 with no
 * operators or from another origin, 404 for no such task, 409 for one already ended.
 *
 * @example
 * ```ts
 * if (req.method === 'POST' && cancelKey !== null) return operatorCancel(ctx, req, res, cancelKey);
 * ```
 */
export async function operatorCancel(ctx: OperatorCancelContext, req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
  if (!ctx.access.operators || !ctx.cancel) return json(res, 403, { error: NO_OPERATORS });
  const operator = ctx.access.operator(req);
  if (operator === null) return unauthorized(res, "Unauthorized: an action needs an operator's token as 'Authorization: Bearer <token>' (--inspect-operator TOKEN=NAME)");
  // A browser always sends Origin on a POST: a page of another site may not act through it.
  const origin = ctx.access.foreignOrigin(req);
  if (origin !== null) {
    return json(res, 403, { error: `Forbidden: an action must come from this inspector's own page, not from Origin '${origin.slice(0, 200)}' (behind a proxy that rewrites Host, allow its origin: --allowed-origin ORIGIN, attachInspector: allowedOrigins)` });
  }
  const read = await reasonOf(req);
  if ('error' in read) return json(res, read.status, { error: read.error });
  const task = (await ctx.observer.list()).find((t) => t.key === key);
  if (!task) return json(res, 404, { error: `No task with key '${key}'` });
  if (isTerminalStatus(task.status)) return json(res, 409, { error: `Conflict: the task already ended (${task.status})` });
  let view;
  try {
    // The requester sees this message: it says an operator acted, not who (the audit line does).
    view = await ctx.cancel(task.taskId, task.owner, read.reason === null ? 'Cancelled by an operator' : `Cancelled by an operator: ${read.reason}`);
  } catch (error) {
    if (error instanceof TaskTerminalError) return json(res, 409, { error: `Conflict: the task already ended: ${error.message}` });
    if (error instanceof TaskNotFoundError || error instanceof TaskExpiredError) return json(res, 404, { error: `No task with key '${key}' (${error.message})` });
    throw error;
  }
  ctx.audit?.info(
    { event: AuditEvent.operatorCancel, operator, taskId: shownTaskId(task.taskId, task.owner), taskKey: key, method: task.method, label: task.label, node: task.node, session: shownSession(task.owner.session), principal: task.owner.principal, reason: read.reason },
    `operator ${operator} cancelled a task`,
  );
  // The observer may trail the runtime's answer (on NATS it reads the event feed): the status the
  // runtime gave back is the one the operator must see.
  const after: ObservedTask = (await ctx.observer.list()).find((t) => t.key === key) ?? task;
  const shown = isTerminalStatus(after.status) ? after : { ...after, status: view.status, statusMessage: view.statusMessage, updatedAt: Math.max(after.updatedAt, view.updatedAt) };
  // An operator proved who they are: the task in full.
  json(res, 200, listedTask(shown, true));
}
