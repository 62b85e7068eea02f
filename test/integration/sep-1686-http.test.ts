import { connectHttp } from './harness/http-wire.js';
import { defineSep1686Flows } from './sep-1686.flows.js';

defineSep1686Flows('streamable HTTP', connectHttp);
