// The real entry point (server/src/main.ts, what `pnpm start` runs) on the embedded default in a child
// process, and the real operator CLI through pnpm: for suites about what a newcomer's terminal shows and about
// several processes on one DATA_DIR.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type Json } from './harness';
import { tsNode } from './script-bundles';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The tsconfig tsx's loader reads (the server's decorators and paths). */
export const TSX_ENV = { TSX_TSCONFIG_PATH: path.join(repoRoot, 'server/tsconfig.json') };

/** The environment of the child processes: the embedded default, whatever the test runner was given. */
export function embeddedEnv(dataDir: string, baseUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, BASE_URL: baseUrl, LOG_LEVEL: 'error' };
  delete env.DATABASE_URL;
  delete env.SMTP_URL;
  delete env.REDIS_URL;
  delete env.APP_ENV;
  return env;
}

export interface Embedded {
  child: ChildProcess;
  baseUrl: string;
  output(): string;
}

/** server/src/main.ts in a child process on `dataDir`, ready once the quickstart file and the JWKS are there. */
export async function startEmbedded(dataDir: string, extra: Record<string, string> = {}): Promise<Embedded> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const main = tsNode('server/src/main.ts');
  const child = spawn(main.file, main.args, {
    cwd: repoRoot,
    env: { ...embeddedEnv(dataDir, baseUrl), ...TSX_ENV, PORT: String(port), ...extra },
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${out}`);
    if (Date.now() > deadline) throw new Error(`the service did not answer:\n${out}`);
    const ok = await fetch(`${baseUrl}/.well-known/service-audit-jwks.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok && fs.existsSync(path.join(dataDir, 'quickstart.json'))) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, baseUrl, output: () => out };
}

export async function stop(e: Embedded | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!e || e.child.exitCode !== null || e.child.signalCode !== null) return;
  const exited = new Promise((r) => e.child.once('exit', r));
  e.child.kill(signal);
  await exited;
}

/** `pnpm operator …` from the repository root, as the README says, on the same DATA_DIR. */
export function pnpmOperator(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string; json?: Json }> {
  return new Promise((resolve) => {
    execFile(
      'pnpm',
      ['--silent', 'operator', ...args],
      { cwd: repoRoot, env, timeout: 90_000 },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        const start = stdout.search(/^[[{]/m);
        resolve({
          code,
          stdout,
          stderr,
          json: code === 0 && start >= 0 ? JSON.parse(stdout.slice(start)) : undefined,
        });
      },
    );
  });
}

export const quickstart = (dataDir: string) =>
  JSON.parse(fs.readFileSync(path.join(dataDir, 'quickstart.json'), 'utf8')) as {
    api_key: string;
    workflow_id: string;
  };

export function createSession(baseUrl: string, apiKey: string, workflowId: string, signal?: AbortSignal) {
  return fetch(`${baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ workflow_id: workflowId }),
    signal,
  });
}
