// Load from the same machine: autocannon (keep-alive connections, pipelining 1) against a server running in a
// child process, so the load generator and the server under test each get a core of the two.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export interface LoadResult {
  /** Mean completed requests per second. */
  rps: number;
  /** CPU time of the server per request, in microseconds (robust to other load on the machine). */
  cpuUs?: number;
  p50: number;
  p99: number;
  total: number;
}

export interface LoadSpec {
  url: string;
  connections: number;
  seconds: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Replaces `[<id>]` in headers and body with a unique id per request (Idempotency-Key). */
  idReplacement?: boolean;
  /** A path per request (e.g. a different session each time). */
  pathFor?: (i: number) => string;
}

export async function load(spec: LoadSpec): Promise<LoadResult> {
  let i = 0;
  const requests = spec.pathFor
    ? [
        {
          setupRequest: (req: Record<string, unknown>) => ({ ...req, path: spec.pathFor?.(i++) }),
        },
      ]
    : undefined;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    idReplacement: spec.idReplacement,
    // biome-ignore lint/suspicious/noExplicitAny: autocannon's request type is looser than its typings
    requests: requests as any,
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0)
    throw new Error(
      `${spec.method ?? 'GET'} ${spec.url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}`,
    );
  return {
    rps: result.requests.total / (result.duration || spec.seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

/** A bench target (tools/bench/target.ts) in a child process; resolves once it printed its JSON info line. */
export interface Target<I> {
  info: I;
  /** CPU seconds the target process has used so far (user + system, all threads; Linux /proc). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU seconds of a process, from /proc/<pid>/stat (NaN where /proc is absent). */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

export async function startTarget<I>(mode: string, env: Record<string, string>): Promise<Target<I>> {
  const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const file = path.join(serverDir, 'src/tools/bench/target.ts');
  // BENCH_CPU_PROF=dir writes a V8 CPU profile of each target (open in Chrome DevTools / speedscope).
  const prof = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)]
    : [];
  const child: ChildProcess = spawn(process.execPath, [...prof, '--import', 'tsx', file, mode], {
    cwd: serverDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const info = await new Promise<I>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench target ${mode} exited with ${code}`)));
    lines.once('line', (l) => resolve(JSON.parse(l) as I));
  });
  return {
    info,
    cpuSeconds: () => processCpuSeconds(child.pid as number),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
