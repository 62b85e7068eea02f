/** The SEP-1686 flows, unchanged, against a NATS front node with a separate worker node. */
import { afterAll } from 'vitest';
import { connectNatsHttp, stopSharedNats } from './harness/nats-front-worker.js';
import { defineSep1686Flows } from './sep-1686.flows.js';

defineSep1686Flows('NATS (front node + worker node, streamable HTTP)', connectNatsHttp);
afterAll(stopSharedNats);
