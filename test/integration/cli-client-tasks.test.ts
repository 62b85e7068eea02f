import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCall, type CallRun } from './harness/cli-call.js';
import { fixtureScript } from './harness/fixture-script.js';
import { assertCliBuilt } from './harness/process.js';
import { expectPollInterval } from './harness/poll-interval.js';

/** What the fixture server saw of one client task (see test/fixtures/client-task-server.ts). */
interface Exchange {
  method: string;
  taskId?: string;
  created?: boolean;
  createTaskResult?: { task?: { taskId: string; status: string } };
  polls: { status: string; pollFrequency?: number; pollInterval?: number }[];
  direct?: Record<string, any>;
  result?: Record<string, any>;
  error?: string;
}

let script: string;
let dir: string;
beforeAll(() => {
  assertCliBuilt();
  script = fixtureScript('client-task-server');
  dir = mkdtempSync(path.join(tmpdir(), 'cli-client-tasks-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REPLY = 'Tasks: call now, fetch later.';

/** The fixture's observations, printed by `call` as the tool's text result. */
function observed(run: CallRun): { elicitation: Exchange; sampling: Exchange } {
  const line = run.stdout.split('\n').find((l) => l.startsWith('{"elicitation"'));
  if (!line) throw new Error(`no tool result in stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  return JSON.parse(line);
}

/** The elicitation answer as the server got it: the direct response (SEP-1686) or tasks/result (2025-11-25), and tasks/result. */
function answersOf(dialect: string, seen: Exchange): unknown[] {
  return dialect === 'sep-1686' ? [seen.direct, seen.result] : [seen.result];
}

function expectHostedTask(dialect: string, seen: Exchange): string {
  expect(seen.error).toBeUndefined();
  const taskId = seen.taskId!;
  expect(taskId).toEqual(expect.any(String));
  // How the client announced the task: SEP-1686's notification, or 2025-11-25's CreateTaskResult.
  if (dialect === 'sep-1686') expect(seen.created).toBe(true);
  else expect(seen.createTaskResult?.task).toMatchObject({ taskId, status: 'working' });
  expect(seen.polls.at(-1)?.status).toBe('completed');
  return taskId;
}

describe('mcp-tasks call hosting client tasks', () => {
  for (const dialect of ['sep-1686', '2025-11-25']) {
    it(`should host a ${dialect} elicitation answered on the terminal and a sampling task, polled by the server to completion`, async () => {
      const log = path.join(dir, `${dialect}.log`);
      let typing = false;
      const run = await runCall(['--stdio', `node ${script} ${log}`, 'ask_client', JSON.stringify({ dialect }), '--sample-reply', REPLY, '--poll', '50'], {
        // Types the name once the server has polled the elicitation task and seen it working (or
        // after 5 s, so that a client that hosts no task fails the assertions below, not the timeout).
        onStderr: (stderr, type) => {
          if (typing || !/Name: $/m.test(stderr)) return;
          typing = true;
          void (async () => {
            const polledWorking = () => existsSync(log) && readFileSync(log, 'utf8').includes('"method":"elicitation/create","polled":"working"');
            for (const until = Date.now() + 5_000; !polledWorking() && Date.now() < until; ) await delay(20);
            type('Grace');
          })();
        },
      });
      expect(run.code, run.stderr).toBe(0);
      const { elicitation, sampling } = observed(run);

      const askId = expectHostedTask(dialect, elicitation);
      const statuses = elicitation.polls.map((p) => p.status);
      expect(statuses.indexOf('working')).toBeGreaterThanOrEqual(0);
      expect(statuses.indexOf('working')).toBeLessThan(statuses.indexOf('completed'));
      // The hosted task suggests what the rule gives under call's --poll interval, in the dialect's own field.
      expectPollInterval(elicitation.polls[0]?.[dialect === 'sep-1686' ? 'pollFrequency' : 'pollInterval'], 50, { status: elicitation.polls[0]?.status });
      for (const answer of answersOf(dialect, elicitation)) expect(answer).toMatchObject({ action: 'accept', content: { name: 'Grace' } });

      const sampleId = expectHostedTask(dialect, sampling);
      for (const answer of answersOf(dialect, sampling)) expect(answer).toMatchObject({ role: 'assistant', content: { type: 'text', text: REPLY } });

      // call shows the tasks it hosts on stderr, as the server saw them.
      expect(run.stderr).toContain(`client task ${askId} (elicitation/create): status: working (waiting for an answer on the terminal)\n`);
      expect(run.stderr).toContain(`client task ${askId} (elicitation/create): status: completed (answered on the terminal)\n`);
      expect(run.stderr).toContain(`client task ${sampleId} (sampling/createMessage): status: completed\n`);
      expect(run.stderr).toContain('? Who is asking?');
    });

    it(`should host a ${dialect} elicitation answered from --answer`, async () => {
      const run = await runCall(['--stdio', `node ${script}`, 'ask_client', JSON.stringify({ dialect }), '--answer', '{"name":"Ada"}', '--sample-reply', REPLY]);
      expect(run.code, run.stderr).toBe(0);
      const { elicitation, sampling } = observed(run);
      const askId = expectHostedTask(dialect, elicitation);
      for (const answer of answersOf(dialect, elicitation)) expect(answer).toMatchObject({ action: 'accept', content: { name: 'Ada' } });
      expectHostedTask(dialect, sampling);
      expect(run.stderr).toContain(`client task ${askId} (elicitation/create): status: completed\n`);
    });
  }
});
