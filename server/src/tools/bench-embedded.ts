// Benchmark: the embedded default (no DATABASE_URL; SQLite file through libsql, ADR 0030). POST /v1/sessions
// (JSON) on the real service against a bare node:http server doing one prepared INSERT on its own libsql
// connection to the SAME file and table, with the engine's pragmas (WAL, synchronous NORMAL). Both run in child
// processes at once on one DATA_DIR (what the operator CLI beside the service does too); autocannon drives them
// in alternating slices, as bench-api.ts does. Needs no database server.
// Run: pnpm bench embedded, or tsx src/tools/bench-embedded.ts [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type LoadResult, load, startTarget, type Target } from './bench/load';
import { type BenchOptions, type BenchRow, latencyRow, rateRow, runIfMain } from './bench/types';

interface ServiceInfo {
  url: string;
  apiKey: string;
  workflowId: string;
}

const CONNECTIONS = 20;
const SLICE_SECONDS = 2;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  const seconds = opts.smoke ? 2 : Number(process.env.BENCH_SECONDS ?? 10);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-embedded-'));
  const env: Record<string, string> = { BENCH_DATA_DIR: dataDir, BENCH_SESSIONS: '10', DATABASE_URL: '' };
  let svc: Target<ServiceInfo> | undefined;
  let raw: Target<{ url: string }> | undefined;
  try {
    svc = await startTarget<ServiceInfo>('service', env); // creates the schema first
    raw = await startTarget<{ url: string }>('raw-insert-sqlite', env);
    const { url, apiKey, workflowId } = svc.info;
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ workflow_id: workflowId, metadata: { order: 'A-1' } });
    const sides = [
      {
        label: 'raw INSERT (libsql, same file)',
        target: raw,
        spec: { url: `${raw.info.url}/v1/sessions`, method: 'POST' as const, headers: json, body },
      },
      {
        label: 'POST /v1/sessions (embedded)',
        target: svc,
        spec: {
          url: `${url}/v1/sessions`,
          method: 'POST' as const,
          headers: { authorization: `Bearer ${apiKey}`, ...json },
          body,
        },
      },
    ];
    for (const x of sides)
      await load({ ...x.spec, connections: CONNECTIONS, seconds: Math.min(2, seconds / 2) });
    const rounds = Math.max(1, Math.round(seconds / SLICE_SECONDS));
    const acc = sides.map(() => ({ total: 0, secs: 0, cpu: 0, p50: [] as number[], p99: [] as number[] }));
    for (let r = 0; r < rounds; r++)
      for (const [k, x] of sides.entries()) {
        const a = acc[k] as (typeof acc)[number];
        const cpu0 = x.target.cpuSeconds();
        const res = await load({ ...x.spec, connections: CONNECTIONS, seconds: seconds / rounds });
        a.cpu += x.target.cpuSeconds() - cpu0;
        a.total += res.total;
        a.secs += res.total / res.rps;
        a.p50.push(res.p50);
        a.p99.push(res.p99);
      }
    const [rawR, createR] = acc.map((a, k): LoadResult => {
      const r = {
        rps: a.total / a.secs,
        p50: median(a.p50),
        p99: median(a.p99),
        total: a.total,
        cpuUs: (a.cpu * 1e6) / a.total,
      };
      console.error(
        `  ${sides[k]?.label.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  server CPU ${r.cpuUs.toFixed(0)} us/req`,
      );
      return r;
    }) as [LoadResult, LoadResult];
    return [
      rateRow('embedded create (JSON)', createR.rps, 'raw libsql INSERT', rawR.rps, 'req/s', '>= 0.5'),
      latencyRow(
        `embedded create p99 @${CONNECTIONS} conn`,
        createR.p99,
        'raw libsql INSERT p99',
        rawR.p99,
        'ms',
      ),
      latencyRow(
        'embedded create CPU/req',
        createR.cpuUs ?? Number.NaN,
        'raw libsql INSERT',
        rawR.cpuUs ?? Number.NaN,
        'us',
      ),
    ];
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await Promise.all([svc?.stop(), raw?.stop()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, bench);
