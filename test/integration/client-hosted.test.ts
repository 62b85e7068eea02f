import { createTaskRuntime } from '../../runtime/index.js';
import { defineClientHostedFlows } from './client-hosted.flows.js';

defineClientHostedFlows('memory backend', async ({ pollFrequency }) => {
  const runtime = createTaskRuntime({ pollFrequency });
  return { runtime, workers: [], dispose: () => runtime.dispose() };
});
