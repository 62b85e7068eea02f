/**
 * `serve --otel`'s resource: the process's identity (service version, pid, runtime), nothing read
 * from its command line, which carries the tokens given as flags.
 */
import { describe, expect, it } from 'vitest';
import { processIdentity } from '../../../adapters/cli/otel-flag.js';

describe('processIdentity', () => {
  it('should name the service version, pid and runtime, and nothing of the command line', () => {
    const identity = processIdentity('1.2.3');
    expect(identity).toEqual({
      'service.version': '1.2.3',
      'process.pid': process.pid,
      'process.runtime.name': 'nodejs',
      'process.runtime.version': process.versions.node,
      'process.runtime.description': 'Node.js',
    });
    const text = JSON.stringify(identity);
    for (const arg of process.argv.slice(1)) expect(text).not.toContain(arg);
  });
});
