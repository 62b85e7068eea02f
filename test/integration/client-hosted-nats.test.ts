/**
 * The client-hosted task flows with the client's tasks on NATS: the client serves them from a
 * front-role runtime, a worker-role runtime on the same prefix (its own connection) runs the work.
 */
import { afterAll, beforeAll } from 'vitest';
import { createNatsTaskRuntime } from '../../runtime/backends/nats/index.js';
import { freshPrefix } from './harness/cluster.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { defineClientHostedFlows } from './client-hosted.flows.js';

let nats: NatsServer | undefined;
beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
});
afterAll(async () => {
  await nats?.stop();
});

defineClientHostedFlows('NATS: front runtime + worker runtime', async ({ pollFrequency }) => {
  if (nats === undefined) throw new Error('nats-server not started');
  const prefix = freshPrefix('hosted');
  const servers = { servers: nats.url };
  const [front, worker] = await Promise.all([
    createNatsTaskRuntime({ pollFrequency, nats: servers, prefix, role: 'front' }),
    createNatsTaskRuntime({ pollFrequency, nats: servers, prefix, role: 'worker' }),
  ]);
  return {
    runtime: front,
    workers: [worker],
    dispose: async () => {
      await Promise.all([front.dispose(), worker.dispose()]);
    },
  };
});
