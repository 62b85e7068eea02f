import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCall } from './harness/cli-call.js';
import { assertCliBuilt } from './harness/process.js';

// The reference server of the MCP project, over stdio. It lists its trigger-*-async tools only to
// a client that declares tasks.requests.{sampling.createMessage, elicitation.create}, sends their
// requests with params.task (2025-11-25), and polls the client's tasks/get once a second.
const everything = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const stdio = ['--stdio', `node ${everything} stdio`];

beforeAll(() => assertCliBuilt());

/** The id of the client task the server reported creating ("Task created: ID"). */
function createdTaskId(stdout: string): string {
  const id = /Task created: (\S+)/.exec(stdout)?.[1];
  if (!id) throw new Error(`the server created no client task:\n${stdout}`);
  return id;
}

describe('mcp-tasks call against @modelcontextprotocol/server-everything', () => {
  it('should complete trigger-sampling-request-async: the server polls the sampling task call hosts to its canned reply', async () => {
    // 2025-11-25: the tool itself is not a task tool, so call must call it without one.
    const run = await runCall([...stdio, 'trigger-sampling-request-async', '{"prompt":"Say hi"}', '--dialect', '2025-11-25', '--sample-reply', 'Hi from the canned model']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toContain('no task: the server answered trigger-sampling-request-async directly');
    expect(run.stdout).toContain('[COMPLETED] Async sampling completed!');
    expect(run.stdout).toContain('"text": "Hi from the canned model"');
    const id = createdTaskId(run.stdout);
    expect(run.stdout).toMatch(/Poll \d+: completed/);
    expect(run.stderr).toContain(`client task ${id} (sampling/createMessage): status: completed\n`);
  });

  it('should complete trigger-elicitation-request-async with the --answer given', async () => {
    const answer = { name: 'Ada Lovelace', favoriteColor: 'Purple', agreeToTerms: true };
    const run = await runCall([...stdio, 'trigger-elicitation-request-async', '--answer', JSON.stringify(answer)]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('[COMPLETED] User provided the requested information!');
    expect(run.stdout).toContain('- Name: Ada Lovelace\n- Favorite Color: Purple\n- Agreed to terms: true');
    const id = createdTaskId(run.stdout);
    expect(run.stderr).toContain(`client task ${id} (elicitation/create): status: completed\n`);
  });

  it('should complete simulate-research-query as a 2025-11-25 task, its clarification answered on the terminal', async () => {
    let typed = false;
    const run = await runCall([...stdio, 'simulate-research-query', '{"topic":"python","ambiguous":true}', '--dialect', '2025-11-25', '--poll', '200'], {
      timeout: 28_000,
      onStderr: (stderr, type) => {
        if (typed || !/Clarification \(.*\): $/m.test(stderr)) return;
        typed = true;
        type('snake');
      },
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stderr).toMatch(/(^|: )task \S+$/m);
    expect(run.stderr).toContain('status: working (Gathering sources...)');
    expect(run.stderr).toContain('status: input_required');
    expect(run.stderr).toContain('? The research query "python" could have multiple interpretations');
    expect(run.stdout).toContain('# Research Report: python (snake)');
    expect(run.stdout).toContain('After receiving clarification ("snake"), the task resumed processing and completed.');
  }, 30_000);
});
