/**
 * The NATS JetStream backend: many `mcp-tasks` nodes, one task space.
 *
 * @example
 * ```ts
 * import { createNatsTaskRuntime } from 'mcp-task-actors/nats';
 * const runtime = await createNatsTaskRuntime({ nats: { servers: ['nats://10.0.0.1:4222'] }, role: 'both' });
 * runtime.registerHandler('tools/call:sleep', sleep, { retry: 'restart' });
 * ```
 *
 * @module
 */
export { createNatsTaskRuntime } from './nats-runtime.js';
export type { NatsTaskRuntime, NatsTaskRuntimeOptions } from './nats-runtime.js';
export { connectNats } from './connection.js';
export type { NatsConnectionOptions, NatsTlsOptions } from './connection.js';
export { openSessionStore } from './session-store.js';
export type { SessionDirectory } from './session-store.js';
export { NatsBackendError, NatsUnavailableError, LeaseLostError, RevisionMismatchError } from './errors.js';
