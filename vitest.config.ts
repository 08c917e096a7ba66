import { defineConfig } from 'vitest/config';

// One runner for the workspace: unit tests beside the server code, black-box suites in test/.
export default defineConfig({
  test: {
    include: ['server/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
