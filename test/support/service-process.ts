// A service in a child process, for suites that must tell a crash of the process apart from a bad answer
// (hardening.test.ts): an uncaught error inside the service kills this process, which the parent sees as an
// exit, instead of being swallowed by the test runner's own handlers. The child prints one JSON line with the
// base URL, a sandbox API key and an identify workflow, then serves until it is killed.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

export interface ChildService {
  child: ChildProcess;
  baseUrl: string;
  apiKey: string;
  workflowId: string;
  signWorkflowId: string;
  /** Everything the child wrote to stderr so far (its logs). */
  stderr(): string;
  /** True while the process runs. */
  alive(): boolean;
  stop(): Promise<void>;
}

export async function startChildService(): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'service-process.main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, TSX_TSCONFIG_PATH: path.join(repoRoot, 'server/tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const info = await new Promise<{
    baseUrl: string;
    apiKey: string;
    workflowId: string;
    signWorkflowId: string;
  }>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"ready"'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`child service exited (${code}) before ready:\n${err}`)));
  });
  return {
    child,
    ...info,
    stderr: () => err,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
