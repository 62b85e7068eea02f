import { connectStdio } from './harness/stdio-wire.js';
import { defineSep1686Flows } from './sep-1686.flows.js';

defineSep1686Flows('stdio', connectStdio);
