/** The input_required flows, unchanged, against a NATS front node with a separate worker node. */
import { afterAll } from 'vitest';
import { connectInteractiveNatsHttp, stopSharedNats } from './harness/nats-front-worker.js';
import { defineInputRequiredFlows } from './input-required.flows.js';

defineInputRequiredFlows('NATS (front node + worker node, streamable HTTP)', connectInteractiveNatsHttp);
afterAll(stopSharedNats);
