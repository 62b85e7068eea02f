/**
 * Registering a request handler on an SDK v2 `Server` or `Client` with the SDK's schema form (the
 * only form for methods outside its own typed set, such as the task methods), every failure turned
 * into the JSON-RPC error that says what was wrong. SDK-free, for the server and client adapters.
 *
 * @module
 */
import { z } from 'zod';
import { toJsonRpcError } from '../wire/wire-errors.js';

/** Params of any shape: the handler, not a schema library, words what is wrong with them. */
const AnyParams = z.looseObject({});

/**
 * Registers `handler` for `method` on a v2 peer.
 *
 * @example
 * ```ts
 * registerWithSchema<ServerContext>(server, 'tasks/list', (params, ctx) => answers.list(params, ownerOf(ctx)));
 * ```
 */
export function registerWithSchema<Ctx>(peer: object, method: string, handler: (params: Record<string, unknown>, ctx: Ctx) => unknown): void {
  const checked = async (params: Record<string, unknown>, ctx: Ctx): Promise<never> => {
    try {
      return (await handler(params, ctx)) as never;
    } catch (error) {
      throw toJsonRpcError(error);
    }
  };
  const { setRequestHandler } = peer as { setRequestHandler: (m: string, s: { params: unknown }, h: typeof checked) => void };
  setRequestHandler.call(peer, method, { params: AnyParams }, checked);
}
