// Benchmark: does the cost of a request or a sweeper pass follow the work, not the table size? The same
// measurements at a small and a large session table (10k vs 100k by default; 1M with --large, which takes
// minutes to fill): GET p99, an Idempotency-Key replay's p99 (a unique-index lookup on the session table, ADR 0024), a sweeper pass that expires 100 overdue sessions and
// an idle sweeper pass. Ratio = small / large (1 = flat). 5% of the filled sessions are live, like a busy
// business; the rest have ended. Needs MySQL/MariaDB like bench-api.ts.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { createTestDatabase } from '../app/test-database';
import type { Ctx } from '../common/context';
import { configFrom } from '../config/config';
import { createService, type Service } from '../service';
import { load } from './bench/load';
import { type BenchOptions, type BenchRow, latencyRow, runIfMain } from './bench/types';

interface Measured {
  getP99: number;
  replayP99: number;
  sweepMs: number;
  idleSweepMs: number;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Bulk rows straight into the tables (test data, not a code path under test). */
async function fill(
  url: string,
  t: { businessId: string; workflowId: string },
  from: number,
  to: number,
): Promise<void> {
  const conn = await mysql.createConnection({ uri: url, timezone: 'Z' });
  try {
    const now = Date.now();
    const CHUNK = 2000;
    for (let start = from; start < to; start += CHUNK) {
      const rows: unknown[][] = [];
      for (let i = start; i < Math.min(to, start + CHUNK); i++) {
        const live = i % 20 === 0;
        const created = new Date(now - (live ? 60_000 : 86_400_000 + i));
        const expires = new Date(live ? now + 3600_000 : created.getTime() + 3600_000);
        rows.push([
          id('sess'),
          t.businessId,
          'sandbox',
          t.workflowId,
          1,
          live ? 'created' : i % 3 ? 'completed' : 'expired',
          live ? 0 : 2,
          0,
          null,
          expires,
          null,
          null,
          created,
          created,
          live ? null : expires,
          // every tenth session was created with an Idempotency-Key (held on the row: ADR 0024)
          i % 10 === 0 ? randomBytes(32).toString('hex') : null,
        ]);
      }
      await conn.query(
        'INSERT INTO session (id, business_id, environment, workflow_id, workflow_revision, status, version, current_stage, metadata, expires_at, step_expires_at, binding_hash, created_at, updated_at, ended_at, idem_key) VALUES ?',
        [rows],
      );
    }
  } finally {
    await conn.end();
  }
}

async function measure(
  svc: Service,
  base: string,
  apiKey: string,
  ctx: Ctx,
  workflowId: string,
  seconds: number,
) {
  const auth = { authorization: `Bearer ${apiKey}` };
  // sessions to read, and one idempotency key to replay
  const ids: string[] = [];
  for (let i = 0; i < 50; i++)
    ids.push((await svc.sessions.create(ctx, { workflow_id: workflowId })).session.id);
  const key = `replay-${randomBytes(6).toString('hex')}`;
  await svc.sessions.create(ctx, { workflow_id: workflowId }, key);
  // warm-up (JIT, pool), not measured
  await load({
    url: base,
    connections: 10,
    seconds: 1,
    headers: auth,
    pathFor: (i) => `/v1/sessions/${ids[i % 50]}`,
  });
  const get = await load({
    url: base,
    connections: 10,
    seconds,
    headers: auth,
    pathFor: (i) => `/v1/sessions/${ids[i % ids.length]}`,
  });
  const replay = await load({
    url: `${base}/v1/sessions`,
    connections: 10,
    seconds,
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ workflow_id: workflowId }),
  });
  // 100 sessions that are overdue now: created with the minimum window, then the pass runs 2 minutes later
  const overdue: string[] = [];
  for (let i = 0; i < 100; i++)
    overdue.push((await svc.sessions.create(ctx, { workflow_id: workflowId, expires_in: 60 })).session.id);
  const clock = svc.clock as { advance?: (ms: number) => void };
  clock.advance?.(120_000);
  let t0 = performance.now();
  const expired = await svc.sessions.sweepOverdue();
  const sweepMs = performance.now() - t0;
  if (expired !== 100) throw new Error(`sweeper expired ${expired}, expected 100`);
  t0 = performance.now();
  await svc.sessions.sweepOverdue();
  const idleSweepMs = performance.now() - t0;
  return { getP99: get.p99, replayP99: replay.p99, sweepMs, idleSweepMs } satisfies Measured;
}

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  if (process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;
  const small = opts.smoke ? 1_000 : 10_000;
  const large = opts.smoke ? 10_000 : opts.large ? 1_000_000 : 100_000;
  const seconds = opts.smoke ? 2 : 5;
  const db = await createTestDatabase('bench_scale');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const { ManualClock } = await import('../common/clock');
  const clock = new ManualClock(Date.now());
  const svc = await createService(
    configFrom({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      LOG_LEVEL: 'error',
      RATE_LIMIT: '100000000/1',
    } as never),
    { workers: false, clock },
  );
  try {
    const base = await svc.listen();
    const biz = await svc.tenancy.createBusiness('Bench GmbH');
    const key = await svc.tenancy.issueApiKey(biz.id, 'sandbox');
    const ctx: Ctx = {
      actor: { kind: 'api_key', apiKeyId: key.id, businessId: biz.id, environment: 'sandbox' },
      requestId: 'bench',
      clock,
    };
    const wf = await svc.workflows.create(ctx, {
      name: 'Bench',
      steps: [{ primitive: 'identify', claims: ['given_name'] }],
    });
    await svc.workflows.publish(ctx, wf.id);
    await svc.webhooks.configureEndpoint(ctx, `${base}/dev/webhook-receiver`);
    const tenant = { businessId: biz.id, workflowId: wf.id };
    const log = (n: number, m: Measured) =>
      console.error(
        `  ${String(n).padStart(8)} sessions: GET p99 ${m.getP99} ms, replay p99 ${m.replayP99} ms, sweep of 100 ${m.sweepMs.toFixed(1)} ms, idle sweep ${m.idleSweepMs.toFixed(1)} ms`,
      );
    let t0 = performance.now();
    await fill(db.url, tenant, 0, small);
    console.error(`  filled ${small} sessions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const a = await measure(svc, base, key.key, ctx, wf.id, seconds);
    log(small, a);
    t0 = performance.now();
    await fill(db.url, tenant, small, large);
    console.error(`  filled ${large} sessions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await svc.ds.query('ANALYZE TABLE session');
    const b = await measure(svc, base, key.key, ctx, wf.id, seconds);
    log(large, b);
    const vs = (name: string) => `${name} @${small / 1000}k`;
    const at = (name: string) => `${name} @${large >= 1e6 ? `${large / 1e6}M` : `${large / 1000}k`}`;
    return [
      latencyRow(at('GET p99'), b.getP99, vs('GET p99'), a.getP99, 'ms', 'flat (~1)'),
      latencyRow(at('replay p99'), b.replayP99, vs('replay p99'), a.replayP99, 'ms', 'flat (~1)'),
      latencyRow(at('sweep 100 overdue'), b.sweepMs, vs('sweep 100 overdue'), a.sweepMs, 'ms', 'flat (~1)'),
      latencyRow(at('idle sweep'), b.idleSweepMs, vs('idle sweep'), a.idleSweepMs, 'ms', 'flat (~1)'),
    ];
  } finally {
    await svc.close();
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, bench);
