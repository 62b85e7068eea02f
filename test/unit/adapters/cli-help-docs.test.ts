/**
 * docs/cli.md shows each command's help as the command prints it: every help constant appears
 * there verbatim, so a flag added to a command and not to the reference (or the other way round)
 * fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CALL_HELP } from '../../../adapters/cli/call-help.js';
import { DIAGRAM_HELP } from '../../../adapters/cli/diagram.js';
import { SERVE_HELP } from '../../../adapters/cli/serve.js';
import { STATUS_HELP } from '../../../adapters/cli/status.js';
import { TASKS_HELP } from '../../../adapters/cli/tasks-help.js';

const reference = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');

describe('docs/cli.md', () => {
  for (const [name, help] of Object.entries({ serve: SERVE_HELP, call: CALL_HELP, tasks: TASKS_HELP, status: STATUS_HELP, diagram: DIAGRAM_HELP })) {
    it(`shows the help of ${name} exactly as the command prints it`, () => {
      const firstLine = help.split('\n')[0]!;
      const at = reference.indexOf(firstLine);
      expect(at, `docs/cli.md has no block starting '${firstLine}'`).toBeGreaterThanOrEqual(0);
      const block = reference.slice(at, reference.indexOf('```', at));
      expect(block.trimEnd()).toBe(help.trimEnd());
    });
  }
});
