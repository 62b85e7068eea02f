import { describe, expect, it } from 'vitest';
import { main as inspector } from '../../examples/04-inspector.js';

describe('examples', () => {
  it("should run 04-inspector: the page's API follows a machine handler from state to state", async () => {
    const { url, seen, status } = await inspector();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(status).toBe('completed');
    expect(seen).toEqual(['import.fetching', 'import.parsing', 'import.done']);
  });
});
