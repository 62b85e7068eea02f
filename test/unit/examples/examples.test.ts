import { describe, expect, it } from 'vitest';
import { main as embedSdkServer } from '../../../examples/01-embed-sdk-server.js';

describe('examples', () => {
  it('should run 01-embed-sdk-server: poll a task to completed and fetch its result', async () => {
    const seen = await embedSdkServer();
    expect(seen.statuses.at(-1)).toBe('completed');
    expect(seen.statuses).toContain('working');
    expect(seen.result).toBe('9 words');
  });
});
