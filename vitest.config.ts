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
    // Suites share their worker process (ADR 0066): the service graph is imported once per worker instead of
    // once per file (about 440 s of a run's import time). Every service a suite starts is its own instance over
    // its own database, and the module-level caches are keyed by instance; a suite that reads a process-wide
    // library default reads it in a child process of its own (independent-holder.test.ts).
    isolate: false,
    fileParallelism: true,
    setupFiles: ['./test/support/vitest-setup.ts'],
    // the spawned entry points (operator CLI, server main) built once per run: test/support/script-bundles.ts
    globalSetup: ['./test/support/global-setup.ts'],
  },
});
