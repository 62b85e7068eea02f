/**
 * What becomes of a task whose worker was lost: one pure rule, decided from the task's stored
 * state and its tool's retry policy, whatever backend keeps the record (the NATS backend's
 * failover applies it; a backend only stores what it decides).
 *
 * @module
 */
import { isTerminalStatus, type TaskStatus } from '../../machines/index.js';

/** A tool's retry policy, as its work was registered. */
export interface RetryPolicy {
  /** `'never'`: a lost run ends the task; `'restart'`: run again from the start; `'resume'`: from the last checkpoint. */
  readonly retry: 'never' | 'restart' | 'resume';
  /** Runs of the task, at most (the first included). */
  readonly maxAttempts: number;
}

/** What the task was when its worker was lost. */
export interface LostRunState {
  readonly status: TaskStatus;
  /** Runs started so far (0: queued, never started). */
  readonly attempts: number;
}

/** What to do with a task whose worker was lost. */
export type LostRunDecision =
  /** Ended already: only its retention timer may need queuing again. */
  | { readonly kind: 'ended' }
  /** Queue run `attempt`; `message` (when not null) is the status message that says why. */
  | { readonly kind: 'run'; readonly attempt: number; readonly how: 'start' | 'restart' | 'resume'; readonly message: string | null }
  /**
   * End the task with this status message: `unknown` when its worker was lost (what the work did
   * is not known), `failed` when its node shut down (the work was stopped there).
   */
  | { readonly kind: 'lose'; readonly status: 'unknown' | 'failed'; readonly message: string };

/**
 * Why a run left its node: the node was lost (died, stalled past its lease), or it shut down and
 * handed the run over at the end of its drain (see `TaskRuntime.close`).
 */
export type RunLeft = 'lost' | 'shutdown';

/**
 * How a status message names the node a run left: "Worker X was lost" or "Node X shut down",
 * the one wording of the lost-run decision and of the node that takes the run over.
 *
 * @example
 * ```ts
 * runLeftNode('node-a', 'shutdown'); // 'Node node-a shut down'
 * ```
 */
export function runLeftNode(node: string, left: RunLeft): string {
  return left === 'lost' ? `Worker ${node} was lost` : `Node ${node} shut down`;
}

/**
 * The status message of a task still running when its node's drain ended and no other node may
 * take it over: on NATS a tool that may not run again (the node named), in memory any (the
 * process is the server).
 *
 * @example
 * ```ts
 * shutDownMessage('node-a'); // 'Node node-a shut down before the task finished'
 * shutDownMessage(null);     // 'The server shut down before the task finished'
 * ```
 */
export function shutDownMessage(node: string | null): string {
  return `${node === null ? 'The server' : `Node ${node}`} shut down before the task finished`;
}

/**
 * Decides what becomes of a task whose worker `lostNode` was lost.
 *
 * A task never started is started (it lost nothing); one started is run again when its policy
 * allows it and attempts remain, else it ends lost. A task waiting for input that is run again
 * stays `input_required` meanwhile (its requests stay answerable): the decision only says so in
 * its message. A node that shut down hands its runs over by the same rule; what it cannot hand
 * over ends `failed` (the work was stopped, not lost) with a message that says so.
 *
 * @example
 * ```ts
 * decideLostRun({ status: 'working', attempts: 1 }, { retry: 'resume', maxAttempts: 3 }, 'node-a');
 * // { kind: 'run', attempt: 2, how: 'resume', message: 'Worker node-a was lost; resuming the task elsewhere (attempt 2 of 3)' }
 * ```
 */
export function decideLostRun(state: LostRunState, policy: RetryPolicy, lostNode: string, left: RunLeft = 'lost'): LostRunDecision {
  if (isTerminalStatus(state.status)) return { kind: 'ended' };
  const { attempts } = state;
  const rerunnable = policy.retry === 'restart' || policy.retry === 'resume';
  if (attempts === 0) return { kind: 'run', attempt: 1, how: 'start', message: null };
  const gone = runLeftNode(lostNode, left);
  if (rerunnable && attempts < policy.maxAttempts) {
    const how = policy.retry === 'resume' ? 'resuming the task elsewhere' : 'running the task again';
    return { kind: 'run', attempt: attempts + 1, how: policy.retry, message: `${gone}; ${how} (attempt ${attempts + 1} of ${policy.maxAttempts})` };
  }
  const tries = rerunnable ? ` (after ${attempts} attempts)` : '';
  if (left === 'shutdown') return { kind: 'lose', status: 'failed', message: `${shutDownMessage(lostNode)}${tries}` };
  return { kind: 'lose', status: 'unknown', message: `${gone} while running the task${tries}` };
}
