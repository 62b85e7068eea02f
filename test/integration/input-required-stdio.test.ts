import { connectInteractiveStdio } from './harness/stdio-wire.js';
import { defineInputRequiredFlows } from './input-required.flows.js';

defineInputRequiredFlows('stdio', connectInteractiveStdio);
