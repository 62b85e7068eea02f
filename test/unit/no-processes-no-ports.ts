/**
 * The `unit` project's promise: no process started, no port opened, so it runs in seconds on any
 * machine. A unit test that tries either fails at once, saying where such a test belongs, instead
 * of slowly becoming an integration test.
 */
import childProcess from 'node:child_process';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

const refuse = (what: string) => () => {
  throw new Error(`a unit test ${what}: unit tests start no process and open no port; move this test to test/integration`);
};
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  Reflect.set(childProcess, name, refuse(`started a process (child_process.${name})`));
}
net.Server.prototype.listen = refuse('opened a port (listen)') as never;
// `import { spawn } from 'node:child_process'` reads the module's named exports: made to follow.
syncBuiltinESMExports();
