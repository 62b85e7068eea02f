import { connectSdkHttp } from './harness/sdk-client.js';
import { define2025Flows } from './spec-2025-11-25.flows.js';

define2025Flows('streamable HTTP', connectSdkHttp);
