// Benchmark: the business API's hot paths against raw baselines measured in the same run, same machine, same
// database and table: POST /v1/sessions (JSON, with and without Idempotency-Key) against a bare node:http server
// doing one mysql2 INSERT per request, and GET /v1/sessions/{id} against a bare primary-key SELECT server.
// Each server runs in a child process; autocannon drives it from this process with 50 keep-alive connections.
// Needs MySQL/MariaDB at BENCH_MYSQL_URL or TEST_MYSQL_URL (a fresh database is created and dropped).
import { createTestDatabase } from '../db/test-database';
import { type LoadResult, load, startTarget } from './bench/load';
import { type BenchOptions, type BenchRow, latencyRow, rateRow, runIfMain } from './bench/types';

interface ServiceInfo {
  url: string;
  apiKey: string;
  workflowId: string;
  sessionIds: string[];
}

const CONNECTIONS = 50;

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  if (process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;
  const seconds = opts.smoke ? 3 : Number(process.env.BENCH_SECONDS ?? 10);
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
    const run = async (label: string, spec: Parameters<typeof load>[0]): Promise<LoadResult> => {
      await load({ ...spec, seconds: 1 }); // warm-up: JIT, pools, caches
      const r = await load(spec);
      console.error(
        `  ${label.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms`,
      );
      return r;
    };
    const base = { connections: CONNECTIONS, seconds };
    const rawC = await run('raw INSERT server', {
      ...base,
      url: `${rawInsert.info.url}/v1/sessions`,
      method: 'POST',
      headers: json,
      body,
    });
    const create = await run('POST /v1/sessions', {
      ...base,
      url: `${url}/v1/sessions`,
      method: 'POST',
      headers: { ...auth, ...json },
      body,
    });
    const createKey = await run('POST /v1/sessions + Idempotency-Key', {
      ...base,
      url: `${url}/v1/sessions`,
      method: 'POST',
      headers: { ...auth, ...json, 'idempotency-key': 'bench-[<id>]' },
      body,
      idReplacement: true,
    });
    const rawG = await run('raw PK SELECT server', {
      ...base,
      url: rawSelect.info.url,
      pathFor: (i) => `/x/${pick(i)}`,
    });
    const get = await run('GET /v1/sessions/{id}', {
      ...base,
      url,
      headers: auth,
      pathFor: (i) => `/v1/sessions/${pick(i)}`,
    });
    return [
      rateRow('create (JSON)', create.rps, 'raw INSERT', rawC.rps, 'req/s', '>= 0.5'),
      latencyRow('create p99 @50 conn', create.p99, 'raw INSERT p99', rawC.p99, 'ms', 'p99 <= 50 ms'),
      rateRow('create + Idempotency-Key', createKey.rps, 'raw INSERT', rawC.rps, 'req/s', '>= 0.5'),
      latencyRow(
        'create + key p99 @50 conn',
        createKey.p99,
        'raw INSERT p99',
        rawC.p99,
        'ms',
        'p99 <= 50 ms',
      ),
      rateRow('GET session', get.rps, 'raw PK SELECT', rawG.rps, 'req/s', '>= 0.7'),
      latencyRow('GET p99 @50 conn', get.p99, 'raw PK SELECT p99', rawG.p99, 'ms'),
    ];
  } finally {
    await Promise.all([svc.stop(), rawInsert.stop(), rawSelect.stop()]);
    await db.drop();
  }
}

runIfMain(import.meta.url, bench);
