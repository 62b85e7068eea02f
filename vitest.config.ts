import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests spawn real servers and mostly wait on them: with two workers on two cores a
    // full run left the CPU 23 % idle (894 s); three kept it busy (722 s) and every test passed.
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
