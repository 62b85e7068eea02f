import { connectInteractiveHttp } from './harness/interactive-wire.js';
import { defineInputRequiredFlows } from './input-required.flows.js';

defineInputRequiredFlows('streamable HTTP', connectInteractiveHttp);
