// Benchmark: the business API's hot paths against raw baselines measured in the same run, same machine, same
// database and table: POST /v1/sessions (JSON, with and without Idempotency-Key) against a bare node:http server
// doing one mysql2 INSERT per request, and GET /v1/sessions/{id} against a bare primary-key SELECT server.
// Each server runs in a child process; autocannon drives it from this process with 50 keep-alive connections,
// each service row in alternating 2 s slices with its baseline.
// Needs MySQL/MariaDB at BENCH_MYSQL_URL or TEST_MYSQL_URL (a fresh database is created and dropped).
import { createTestDatabase } from '../app/test-database';
import {
  type LoadResult,
  type LoadSpec,
  load,
  processCpuSeconds,
  startTarget,
  type Target,
} from './bench/load';
import { type BenchOptions, type BenchRow, latencyRow, rateRow, runIfMain } from './bench/types';

interface ServiceInfo {
  url: string;
  apiKey: string;
  workflowId: string;
  sessionIds: string[];
}

const CONNECTIONS = 50;
/** Seconds per slice of a row's alternation with its baseline (see `pair`). */
const SLICE_SECONDS = 2;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  if (process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;
  const seconds = opts.smoke ? 2 : Number(process.env.BENCH_SECONDS ?? 10);
  const db = await createTestDatabase('bench_api');
  const env = { DATABASE_URL: db.url, BENCH_SESSIONS: opts.smoke ? '100' : '1000' };
  const svc = await startTarget<ServiceInfo>('service', env);
  const rawInsert = await startTarget<{ url: string }>('raw-insert', env);
  const rawSelect = await startTarget<{ url: string }>('raw-select', env);
  try {
    const { url, apiKey, workflowId, sessionIds } = svc.info;
    const auth = { authorization: `Bearer ${apiKey}` };
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ workflow_id: workflowId, metadata: { order: 'A-1' } });
    const pick = (i: number) => sessionIds[i % sessionIds.length] as string;
    // BENCH_API_ONLY=create,key,get limits the run (with BENCH_CPU_PROF, a profile of one path)
    const only = process.env.BENCH_API_ONLY?.split(',');
    // BENCH_DB_PID: the database server's pid on this machine, to report its CPU per request as well
    const dbPid = process.env.BENCH_DB_PID ? Number(process.env.BENCH_DB_PID) : undefined;
    const skipped: LoadResult = { rps: Number.NaN, p50: Number.NaN, p99: Number.NaN, total: 0 };
    interface Side {
      label: string;
      target: Target<unknown>;
      spec: LoadSpec;
    }
    /**
     * A service row and its raw baseline, measured in alternating slices of about SLICE_SECONDS (`seconds`
     * each in all): a change of load on the machine (a compaction, a flush, another job) falls on both sides
     * alike instead of on whichever ran at that moment. Rates and CPU are totals over the slices; p50 and p99
     * are the medians of the slices' own (one stalled slice moves them no more than it should).
     */
    const pair = async (tag: string, baseSide: Side, side: Side): Promise<[LoadResult, LoadResult]> => {
      if (only && !only.includes(tag)) return [skipped, skipped];
      // warm-up, the same for every server: JIT, pools, caches (1 s left the first service row colder than
      // the next one in every run; 2 s, and 1 s in the smoke)
      for (const x of [baseSide, side]) await load({ ...x.spec, seconds: Math.min(2, seconds / 2) });
      const rounds = Math.max(1, Math.round(seconds / SLICE_SECONDS));
      const slices = [baseSide, side].map(() => ({
        total: 0,
        secs: 0,
        cpu: 0,
        db: 0,
        p50: [] as number[],
        p99: [] as number[],
      }));
      for (let r = 0; r < rounds; r++) {
        for (const [k, x] of [baseSide, side].entries()) {
          const acc = slices[k] as (typeof slices)[number];
          const cpu0 = x.target.cpuSeconds();
          const db0 = dbPid ? processCpuSeconds(dbPid) : Number.NaN;
          const res = await load({ ...x.spec, seconds: seconds / rounds });
          acc.cpu += x.target.cpuSeconds() - cpu0;
          if (dbPid) acc.db += processCpuSeconds(dbPid) - db0;
          acc.total += res.total;
          acc.secs += res.total / res.rps;
          acc.p50.push(res.p50);
          acc.p99.push(res.p99);
        }
      }
      return [baseSide, side].map((x, k) => {
        const acc = slices[k] as (typeof slices)[number];
        const r: LoadResult = {
          rps: acc.total / acc.secs,
          p50: median(acc.p50),
          p99: median(acc.p99),
          total: acc.total,
          cpuUs: (acc.cpu * 1e6) / acc.total,
        };
        const dbUs = (acc.db * 1e6) / acc.total;
        console.error(
          `  ${x.label.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  server CPU ${(r.cpuUs as number).toFixed(0)} us/req${dbPid ? `  database CPU ${dbUs.toFixed(0)} us/req` : ''}`,
        );
        return r;
      }) as [LoadResult, LoadResult];
    };
    const base = { connections: CONNECTIONS, seconds };
    const rawInsertSide: Side = {
      label: 'raw INSERT server',
      target: rawInsert,
      spec: { ...base, url: `${rawInsert.info.url}/v1/sessions`, method: 'POST', headers: json, body },
    };
    const [rawC, create] = await pair('create', rawInsertSide, {
      label: 'POST /v1/sessions',
      target: svc,
      spec: { ...base, url: `${url}/v1/sessions`, method: 'POST', headers: { ...auth, ...json }, body },
    });
    const [rawK, createKey] = await pair(
      'key',
      { ...rawInsertSide, label: 'raw INSERT server (beside the key)' },
      {
        label: 'POST /v1/sessions + Idempotency-Key',
        target: svc,
        spec: {
          ...base,
          url: `${url}/v1/sessions`,
          method: 'POST',
          headers: { ...auth, ...json, 'idempotency-key': 'bench-[<id>]' },
          body,
          idReplacement: true,
        },
      },
    );
    const [rawG, get] = await pair(
      'get',
      {
        label: 'raw PK SELECT server',
        target: rawSelect,
        spec: { ...base, url: rawSelect.info.url, pathFor: (i) => `/x/${pick(i)}` },
      },
      {
        label: 'GET /v1/sessions/{id}',
        target: svc,
        spec: { ...base, url, headers: auth, pathFor: (i) => `/v1/sessions/${pick(i)}` },
      },
    );
    return [
      rateRow('create (JSON)', create.rps, 'raw INSERT', rawC.rps, 'req/s', '>= 0.5'),
      latencyRow('create p99 @50 conn', create.p99, 'raw INSERT p99', rawC.p99, 'ms', 'p99 <= 50 ms'),
      rateRow('create + Idempotency-Key', createKey.rps, 'raw INSERT', rawK.rps, 'req/s', '>= 0.5'),
      latencyRow(
        'create + key p99 @50 conn',
        createKey.p99,
        'raw INSERT p99',
        rawK.p99,
        'ms',
        'p99 <= 50 ms',
      ),
      rateRow('GET session', get.rps, 'raw PK SELECT', rawG.rps, 'req/s', '>= 0.7'),
      latencyRow('GET p99 @50 conn', get.p99, 'raw PK SELECT p99', rawG.p99, 'ms'),
      // CPU per request: what the ratios converge to when the machine is busy with other work
      latencyRow('create CPU/req', create.cpuUs ?? Number.NaN, 'raw INSERT', rawC.cpuUs ?? Number.NaN, 'us'),
      latencyRow(
        'create + key CPU/req',
        createKey.cpuUs ?? Number.NaN,
        'raw INSERT',
        rawK.cpuUs ?? Number.NaN,
        'us',
      ),
      latencyRow('GET CPU/req', get.cpuUs ?? Number.NaN, 'raw PK SELECT', rawG.cpuUs ?? Number.NaN, 'us'),
    ];
  } finally {
    // autocannon leaves the requests in flight at its deadline; let them finish before the pools close
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await Promise.all([svc.stop(), rawInsert.stop(), rawSelect.stop()]);
    await db.drop();
  }
}

runIfMain(import.meta.url, bench);
