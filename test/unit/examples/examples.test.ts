import { describe, expect, it } from 'vitest';
import { main as embedSdkServer } from '../../../examples/01-embed-sdk-server.js';
import { main as sdkTaskStore } from '../../../examples/02-sdk-task-store.js';

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
});
