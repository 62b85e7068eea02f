import { createServer } from 'node:http';
import { metrics } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { startMetricsFlag, startMetricsPort } from '../../adapters/cli/metrics-port.js';
import { openTaskMetrics } from '../../runtime/telemetry/metrics.js';

afterEach(() => metrics.disable());

describe('serve --metrics-port', () => {
  it('should refuse --metrics-host alone and a port that is not a number, naming the flag', async () => {
    await expect(startMetricsFlag({ 'metrics-host': '0.0.0.0' }, false)).rejects.toThrow('--metrics-host needs --metrics-port PORT');
    await expect(startMetricsFlag({ 'metrics-port': 'abc' }, false)).rejects.toThrow("--metrics-port expects a port number, got 'abc'");
    await expect(startMetricsFlag({ 'metrics-port': '' }, false)).rejects.toThrow('--metrics-port expects a port number');
    expect(await startMetricsFlag({}, false)).toBeUndefined();
  });

  it('should name the flag when its port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    await expect(startMetricsPort({ port, withOtel: false })).rejects.toThrow(`--metrics-port: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
    await new Promise((resolve) => taken.close(resolve));
  });

  it('should register a meter provider of its own, unless --otel registers one with its reader', async () => {
    const withOtel = await startMetricsPort({ port: 0, withOtel: true });
    expect(openTaskMetrics()).toBeNull();
    await withOtel.close();
    const alone = await startMetricsPort({ port: 0, withOtel: false });
    openTaskMetrics()!.created('tools/call', 'ext');
    const text = await (await fetch(alone.url)).text();
    expect(text).toContain('mcp_task_actors_task_created_total{mcp_method_name="tools/call",mcp_task_actors_task_dialect="ext",otel_scope_name="mcp-task-actors"} 1');
    await alone.close();
    await alone.close();
  });
});
