import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Integration tests spawn real servers and mostly wait on them: with two workers on two cores a
    // full run left the CPU 23 % idle (894 s); three kept it busy (722 s) and every test passed.
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      // `npx vitest run --project unit`: no process, no port (enforced by its setup file), seconds.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], setupFiles: ['test/unit/no-processes-no-ports.ts'] } },
      // The official conformance suite installs its own node_modules under test/: never collected.
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, 'test/unit/**'] } },
    ],
  },
});
