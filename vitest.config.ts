import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const serverRequire = createRequire(new URL('./server/package.json', import.meta.url));

// One runner for the workspace: unit tests beside the server code, black-box suites in test/.
export default defineConfig({
  // graphql ships CJS (main) and ESM (module) builds. Vite would give our code the ESM one while type-graphql
  // and Apollo load the CJS one, and graphql's instanceof checks fail across the two (e.g. a custom scalar).
  // Node itself resolves `main`, so point our imports at the same file.
  resolve: { alias: [{ find: /^graphql$/, replacement: serverRequire.resolve('graphql') }] },
  test: {
    include: ['server/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    setupFiles: ['./test/support/vitest-setup.ts'],
  },
});
