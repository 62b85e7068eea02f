/** The 2025-11-25 flows (a real SDK client), unchanged, against a NATS front node with a separate worker node. */
import { afterAll } from 'vitest';
import { connectSdkNatsHttp, stopSharedNats } from './harness/nats-front-worker.js';
import { define2025Flows } from './spec-2025-11-25.flows.js';

define2025Flows('NATS (front node + worker node, streamable HTTP)', connectSdkNatsHttp);
afterAll(stopSharedNats);
