import { describe, expect, it } from 'vitest';
import { main as embedSdkServer } from '../../examples/01-embed-sdk-server.js';
import { main as sdkTaskStore } from '../../examples/02-sdk-task-store.js';
import { main as agentsDelegating } from '../../examples/03-agents-delegating.js';
import { main as sdkV2Server } from '../../examples/05-sdk-v2-server.js';
import { main as nestedPartialPush } from '../../examples/06-nested-partial-push.js';

describe('examples', () => {
  it('should run 01-embed-sdk-server: poll a task to completed and fetch its result', async () => {
    const seen = await embedSdkServer();
    expect(seen.statuses.at(-1)).toBe('completed');
    expect(seen.statuses).toContain('working');
    expect(seen.result).toBe('9 words');
  });

  it('should run 02-sdk-task-store: an SDK McpServer on RuntimeTaskStore streams a task to its result', async () => {
    const seen = await sdkTaskStore();
    expect(seen.kinds[0]).toBe('taskCreated');
    expect(seen.kinds.at(-1)).toBe('result');
    expect(seen.text).toBe('5');
  });

  it('should run 03-agents-delegating: B asks A and borrows its model mid-task while A keeps working', async () => {
    const seen = await agentsDelegating();
    expect(seen.report).toBe('Report on distributed queues (failure modes): (A\'s model on "Write one sentence on the failure modes of distributed queues.") Retries hide them.');
    // In 2025-11-25 the requester answers input_required by calling tasks/result, which then
    // returns the result itself: input_required is the last status A polls.
    expect(seen.statuses).toContain('input_required');
    expect(seen.otherWork).toBeGreaterThan(1);
  });

  it('should run 05-sdk-v2-server: ext-tasks on a v2 client calls a v2 server\'s tool as a task and answers its elicitation', async () => {
    const seen = await sdkV2Server();
    expect(seen.asked).toEqual(['Who is Room 4 for?']);
    expect(seen.result).toBe('Room 4 booked for Ada');
  });

  it('should run 06-nested-partial-push: subtasks, partial results read with a cursor, a signed webhook at the end', async () => {
    const seen = await nestedPartialPush();
    expect(seen.subtasks).toBe(3);
    expect(seen.partials).toEqual(['page 1', 'page 2', 'page 3']);
    expect(seen.result).toBe('crawled 3 pages');
    expect(seen.pushed).toEqual(['completed']);
    expect(seen.signed).toBe(true);
  });
});
