/**
 * In-process NATS task runtimes (nodes) on one throwaway nats-server per test file: the server
 * starts before the file's tests; every node and the server are disposed of after them.
 */
import { afterAll, beforeAll } from 'vitest';
import { createNatsTaskRuntime, type NatsTaskRuntime, type NatsTaskRuntimeOptions } from '../../../runtime/backends/nats/nats-runtime.js';
import { startNatsServer, type NatsServer } from './nats-server.js';

/** Starts nodes: each gets `defaults`, then its own options, then `register` (its handlers). */
export interface InProcessNodes {
  node(options: NatsTaskRuntimeOptions & { readonly nodeId: string }): Promise<NatsTaskRuntime>;
}

/**
 * Registers the file's server hooks and returns the node factory.
 *
 * @example
 * ```ts
 * const nodes = inProcessNodes((r) => r.registerHandler('sleep', sleep), { leaseTtlMs: 600 });
 * const front = await nodes.node({ prefix, role: 'front', nodeId: 'front' });
 * ```
 */
export function inProcessNodes(register: (runtime: NatsTaskRuntime) => void, defaults: NatsTaskRuntimeOptions = {}): InProcessNodes {
  let server: NatsServer | undefined;
  const runtimes: NatsTaskRuntime[] = [];
  beforeAll(async () => {
    server = await startNatsServer({ jetstream: true });
  }, 30_000);
  afterAll(async () => {
    await Promise.allSettled(runtimes.map((r) => r.dispose()));
    await server?.stop();
  }, 30_000);
  return {
    async node(options) {
      if (!server) throw new Error('the nats-server of this file has not started');
      const runtime = await createNatsTaskRuntime({ nats: { servers: server.url }, ...defaults, ...options });
      register(runtime);
      runtimes.push(runtime);
      return runtime;
    },
  };
}
