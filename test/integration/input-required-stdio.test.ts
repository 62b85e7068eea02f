import { connectInteractiveStdio } from './harness/interactive-wire.js';
import { defineInputRequiredFlows } from './input-required.flows.js';

defineInputRequiredFlows('stdio', connectInteractiveStdio);
