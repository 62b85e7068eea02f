import { connectInteractiveHttp } from './harness/http-wire.js';
import { defineInputRequiredFlows } from './input-required.flows.js';

defineInputRequiredFlows('streamable HTTP', connectInteractiveHttp);
