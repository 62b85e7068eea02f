/**
 * `--operator-token TOKEN` of `mcp-tasks serve --http`: the status endpoint (`GET /status` beside
 * `/mcp`) that `mcp-tasks status --http URL` reads, and who may read it.
 *
 * @module
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { clusterStatusReader } from '../../runtime/backends/nats/cluster-status.js';
import type { TaskRuntime } from '../../runtime/index.js';
import type { OperatorFront } from '../http/endpoint.js';
import { localStatusSource } from '../http/local-status.js';

/** The `parseArgs` option spec of the flag. */
export const OPERATOR_FLAG_SPECS = { 'operator-token': { type: 'string' } } as const;

/**
 * Help lines of the flag, for `SERVE_HELP`.
 *
 * @example
 * ```ts
 * const help = `Transport:\n${OPERATOR_FLAG_HELP}\n`;
 * ```
 */
export const OPERATOR_FLAG_HELP = `  --operator-token TOKEN     with --http: the token of the status endpoint (GET /status beside /mcp,
                             read by mcp-tasks status --http URL), sent as 'Authorization: Bearer TOKEN'
                             [MCP_TASKS_OPERATOR_TOKEN]. Without it the endpoint answers only on a
                             loopback bind without --auth-token; a requester's token never grants it`;

/**
 * The operator's front of a served HTTP endpoint: where `/status` reads (the NATS task space the
 * node is part of, else the process's runtime) and the token it needs.
 *
 * @param runtime - the served runtime; call this before any task is created (it counts them)
 * @param token - `--operator-token`, else `MCP_TASKS_OPERATOR_TOKEN`
 * @param requesterTokens - the `--auth-token` tokens: the operator token must be none of them
 * @param nats - the node's connection and task space, on NATS
 * @throws Error for an empty token, or one that is also a requester's
 * @example
 * ```ts
 * const operator = operatorFront(runtime, values['operator-token'] ?? process.env['MCP_TASKS_OPERATOR_TOKEN'], tokens);
 * ```
 */
export function operatorFront(
  runtime: TaskRuntime,
  token: string | undefined,
  requesterTokens: Readonly<Record<string, string>>,
  nats?: { readonly connection: NatsConnection; readonly prefix: string; readonly replicas: number },
): OperatorFront {
  if (token !== undefined && token.trim() === '') throw new Error('--operator-token must not be empty');
  // A requester holding it would be an operator: the two kinds of token never coincide.
  if (token !== undefined && Object.hasOwn(requesterTokens, token)) throw new Error('--operator-token must differ from every --auth-token: a requester is not an operator');
  return {
    status: nats ? clusterStatusReader(nats.connection, { prefix: nats.prefix, replicas: nats.replicas }) : localStatusSource(runtime),
    operatorToken: token ?? null,
  };
}
