/**
 * The start-up check of the SDK internals listed in `./sdk-internals.ts`: throwaway SDK instances,
 * each listed field checked for its kind and, where that can be seen without I/O, its meaning.
 * Without it, a changed field would show only when a session is first resumed or a relayed
 * answer arrives, long after the server started.
 *
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import {
  expectSdkMeaning,
  isHandlingRequest,
  markSessionInitialized,
  notificationHandler,
  readSdkField,
  requestHandlers,
  restoreClientInfo,
  SDK_INTERNALS,
  sdkCancelHandler,
} from './sdk-internals.js';

/** SDK instances to check: throwaway ones, as the check writes to them. */
export interface SdkProbes {
  readonly server: Server;
  readonly client: Client;
  readonly mcp: McpServer;
  readonly transport: StreamableHTTPServerTransport;
}

/**
 * Fresh throwaway instances of every SDK class in the list.
 *
 * @example
 * ```ts
 * checkSdkInternals(freshSdkProbes());
 * ```
 */
export function freshSdkProbes(): SdkProbes {
  const info = { name: 'sdk-internals-probe', version: '0.0.0' };
  return {
    server: new Server(info, { capabilities: {} }),
    client: new Client(info),
    mcp: new McpServer(info),
    transport: new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'sdk-internals-probe' }),
  };
}

/**
 * Checks every field of `SDK_INTERNALS` on `probes`.
 *
 * @throws SdkInternalsError naming the first field that is missing or changed, and the SDK version
 * @example
 * ```ts
 * checkSdkInternals(freshSdkProbes());
 * ```
 */
export function checkSdkInternals(probes: SdkProbes): void {
  const { server, client, mcp, transport } = probes;
  // Each class's kinds first, so that a missing field is reported as missing, not by a probe.
  for (const protocol of [server, client]) {
    for (const f of SDK_INTERNALS) if (f.owner === 'Protocol') readSdkField(protocol, f.name);
    checkCancelPath(protocol);
    checkRequestHandlers(protocol);
  }
  for (const f of SDK_INTERNALS) if (f.owner === 'Server') readSdkField(server, f.name);
  for (const f of SDK_INTERNALS) if (f.owner === 'McpServer') readSdkField(mcp, f.name);
  const inner = readSdkField(transport, '_webStandardTransport') as object;
  for (const f of SDK_INTERNALS) if (f.owner === 'WebStandardStreamableHTTPServerTransport') readSdkField(inner, f.name);
  restoreClientInfo(server, { probe: {} }, { name: 'probe', version: '0.0.0' });
  markSessionInitialized(transport, 'sdk-internals-probe');
  expectSdkMeaning('_initialized', readSdkField(inner, '_initialized') === true, 'did not keep what was set');
}

// Ids no real request of a throwaway instance has.
const PROBE_IDS = ['sdk-internals-probe-1', 'sdk-internals-probe-2'] as const;

/**
 * The SDK's installed `notifications/cancelled` handler (found in `_notificationHandlers`) and
 * `_oncancel` both abort the request that `_requestHandlerAbortControllers` holds for the id.
 */
function checkCancelPath(protocol: object): void {
  const controllers = readSdkField(protocol, '_requestHandlerAbortControllers') as Map<unknown, AbortController>;
  const [viaHandler, viaOncancel] = PROBE_IDS.map((id) => {
    const controller = new AbortController();
    controllers.set(id, controller);
    return controller;
  }) as [AbortController, AbortController];
  expectSdkMeaning('_requestHandlerAbortControllers', isHandlingRequest(protocol, PROBE_IDS[0]), 'is not keyed by request id');
  const cancelled = (requestId: string): unknown => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'probe' } });
  const installed = notificationHandler(protocol, 'notifications/cancelled');
  expectSdkMeaning('_notificationHandlers', installed !== undefined, 'has no handler for notifications/cancelled');
  // Both run synchronously up to the abort; the promises only carry errors, which the checks see.
  installed?.(cancelled(PROBE_IDS[0])).catch(() => undefined);
  sdkCancelHandler(protocol)(cancelled(PROBE_IDS[1])).catch(() => undefined);
  expectSdkMeaning('_notificationHandlers', viaHandler.signal.aborted, 'holds a notifications/cancelled handler that does not abort the request');
  expectSdkMeaning('_oncancel', viaOncancel.signal.aborted, 'does not abort the cancelled request');
  for (const id of PROBE_IDS) controllers.delete(id);
}

/** `_requestHandlers` holds, by method, what `setRequestHandler` installs; removing it removes it. */
function checkRequestHandlers(protocol: Server | Client): void {
  const schema = z.object({ method: z.literal('sdk-internals/probe') });
  protocol.setRequestHandler(schema, () => ({}));
  const installed = requestHandlers(protocol).get('sdk-internals/probe');
  expectSdkMeaning('_requestHandlers', typeof installed === 'function', 'does not hold what setRequestHandler installs, by method');
  protocol.removeRequestHandler('sdk-internals/probe');
  expectSdkMeaning('_requestHandlers', !requestHandlers(protocol).has('sdk-internals/probe'), 'still holds a removed handler');
}

let verdict: true | Error | undefined;

/**
 * Checks once per process that the installed SDK has every private field this project relies
 * on; later calls cost nothing and repeat the first verdict. Call it where a server, client host
 * or transport of these adapters is first set up, so a changed SDK fails at start-up.
 *
 * @throws SdkInternalsError naming the field, its class and the installed SDK version
 * @example
 * ```ts
 * assertSdkInternals();
 * const sdkCancel = sdkCancelHandler(host);
 * ```
 */
export function assertSdkInternals(): void {
  if (verdict === undefined) {
    try {
      checkSdkInternals(freshSdkProbes());
      verdict = true;
    } catch (error) {
      verdict = error instanceof Error ? error : new Error(String(error));
    }
  }
  if (verdict !== true) throw verdict;
}
