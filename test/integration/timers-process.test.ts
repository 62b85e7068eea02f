import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('runtime timers', () => {
  it('should not keep the process alive while a retained task waits for its keepAlive', () => {
    // A task kept for an hour must not hold the event loop: the script would hang for an hour.
    const script = `
      import { createTaskRuntime } from './dist/runtime/index.js';
      const runtime = createTaskRuntime();
      runtime.registerHandler('h', async () => 'ok');
      const owner = { session: null, principal: null };
      await runtime.create({ taskId: 't', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'h', params: {}, keepAlive: 3_600_000 });
      const done = await runtime.waitForTerminal('t', owner);
      console.log(done.status, done.expiresAt - done.updatedAt);
    `;
    const started = Date.now();
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', timeout: 15_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('completed 3600000');
    expect(run.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
