/**
 * The audit as a decorator of the requester-facing calls of a runtime: whatever the backend, a
 * call that names a task is where a refused look-up, a result retrieval, a cancel or a delete
 * happens, and where polls are counted. Status changes are not seen here: each backend reports
 * them from the one place that writes them (see `AuditLog.changed`).
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import { TaskTimeoutError } from '../errors.js';
import type { TaskRuntime } from '../task-runtime.types.js';
import type { AuditLog, AuditOp } from './audit-log.js';

/**
 * Wraps a runtime so that its calls are audited. The other members (options, stats, the NATS
 * node id…) are the runtime's own, and so are `observe` and `pushDeliveries`: the operator's view names no requester,
 * so there is nothing in it to audit; so are `readiness` and `close` (a refused create is audited as any).
 *
 * @param runtime - the runtime to audit
 * @param audit - where lines go and what is counted
 * @example
 * ```ts
 * const audit = openAudit({ logger }, 'local', Date.now);
 * return audit ? auditRuntime(runtime, audit) : runtime;
 * ```
 */
export function auditRuntime<R extends TaskRuntime>(runtime: R, audit: AuditLog): R {
  /** Runs a call that names a task; a failure is reported to the audit, then rethrown as is. */
  async function lookup<T>(op: AuditOp, taskId: string | null, owner: TaskOwner, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      audit.failed(op, taskId, owner, error);
      throw error;
    }
  }

  const audited: Omit<TaskRuntime, 'options' | 'registerHandler' | 'onInputRequest' | 'subscribe' | 'stats' | 'security' | 'observe' | 'pushDeliveries' | 'readiness' | 'close' | 'dispose'> = {
    create: (o) => lookup('create', o.taskId, o.owner, () => runtime.create(o)),

    async get(taskId, owner, o) {
      // The server's own read (a status push, finding which key a task is under) is no requester's
      // look-up: a miss there is not refused, nor counted against anyone.
      const task = o?.countsAsPoll === false ? await runtime.get(taskId, owner, o) : await lookup('get', taskId, owner, () => runtime.get(taskId, owner, o));
      // The server's own reads (status pushes) are not the requester polling too fast.
      if (o?.countsAsPoll !== false) audit.polled(task, owner);
      return task;
    },

    list: (owner, o) => lookup('list', null, owner, () => runtime.list(owner, o)),

    async result(taskId, owner, o) {
      const out = await lookup('result', taskId, owner, () => runtime.result(taskId, owner, o));
      audit.retrieved('result', out.task, owner, true);
      return out;
    },

    async outcome(taskId, owner, o) {
      const out = await lookup('outcome', taskId, owner, () => runtime.outcome(taskId, owner, o));
      audit.retrieved('outcome', out.task, owner, out.hasResult);
      return out;
    },

    async peek(taskId, owner, o) {
      const now = await lookup('peek', taskId, owner, () => runtime.peek(taskId, owner, o));
      // One look is one poll; an ended task's outcome is also a retrieval.
      if (o?.countsAsPoll !== false) audit.polled('ended' in now ? now.ended.task : now.running, owner);
      if ('ended' in now) audit.retrieved('peek', now.ended.task, owner, now.ended.hasResult);
      return now;
    },

    async waitForOutcome(taskId, owner, o) {
      let out;
      try {
        out = await lookup('waitForOutcome', taskId, owner, () => runtime.waitForOutcome(taskId, owner, o));
      } catch (error) {
        // A wait that found the task still running when its time was up (`tasks/result` of a
        // running task looks once, with timeout 0) was a poll all the same.
        if (error instanceof TaskTimeoutError && error.task && o?.countsAsPoll !== false) audit.polled(error.task, owner);
        throw error;
      }
      // A requester's wait is charged as a poll (its first look-up); `tasks/result` of an ended
      // task is just that one look-up, and is judged as the poll it is.
      if (o?.countsAsPoll !== false) audit.polled(out.task, owner);
      audit.retrieved('waitForOutcome', out.task, owner, out.hasResult);
      return out;
    },

    waitForTerminal: (taskId, owner, o) => lookup('waitForTerminal', taskId, owner, () => runtime.waitForTerminal(taskId, owner, o)),

    update: (taskId, owner, change) => lookup('update', taskId, owner, () => runtime.update(taskId, owner, change)),

    async cancel(taskId, owner, reason) {
      const task = await lookup('cancel', taskId, owner, () => runtime.cancel(taskId, owner, reason));
      audit.cancelled(task, owner);
      return task;
    },

    async delete(taskId, owner) {
      await lookup('delete', taskId, owner, () => runtime.delete(taskId, owner));
      audit.deleted(taskId, owner);
    },

    pendingInputRequests: (taskId, owner) => lookup('pendingInputRequests', taskId, owner, () => runtime.pendingInputRequests(taskId, owner)),

    answerInput: (taskId, owner, inputId, answer) => lookup('answerInput', taskId, owner, () => runtime.answerInput(taskId, owner, inputId, answer)),
  };
  return { ...runtime, ...audited };
}
