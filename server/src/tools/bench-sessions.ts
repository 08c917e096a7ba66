// Benchmark: complete sessions per second on one node, end to end, the number a business sizing the service
// asks for, beside a raw server doing the same round trips (ADR 0045 and its third amendment). One session:
// POST /v1/sessions -> the person's browser opens the hosted page (the open answers its signerSession read), starts, reads,
// fetches the wallet request -> the sandbox wallet answers (SD-JWT VC, identify) -> the service verifies it,
// signs the audit record in the KMS and writes the outbox -> the page reads -> the relay delivers step.completed
// and session.completed to a receiver that checks each signature. The session is complete when session.completed
// has arrived.
// Processes: the service runs in this process and nothing else does during a round (this process only waits for
// the driver's answer), so its CPU per session is process.cpuUsage() over the round / sessions completed. The
// browser, the wallet and the receiver run in a forked child (tools/bench/session-driver.ts) talking HTTP. The
// raw baseline (tools/bench/raw-session-server.ts: node:http + mysql2, the same round trips and crypto: insert,
// reads, guarded updates, two ES256 verifies, one ES256 audit signature, two HMAC-signed webhook POSTs) runs in
// a second forked child; its CPU is read from /proc/<pid>/stat (10 ms ticks) around its rounds.
// Interleaved: at 8, 32 and 64 in flight, slices of 2 s alternate raw and service (smoke: one slice each).
// Printed per concurrency and side: sessions/s, CPU per complete session, the wallet response's p50 and p99 and
// how long after it session.completed reached the receiver, p50 and p99 (ADR 0061; both over every slice of
// the side), statements per complete session (the service's: every mysql2 statement of this process,
// tools/bench/statements.ts, the relay's included; the raw server counts its own), and the database's own commit
// p99/max in the side's slices (the driver's commit probe, ADR 0068 amendment 2: a stall of the database shows
// there too, not only in the sessions' latencies).
// Bounded: a round aborts when no session has completed for 20 s (smoke; 30 s full) or after six times that,
// and its row reads DID NOT FINISH; the service is not tried at a higher concurrency after that. Waiting for a
// child's answer is bounded too, and closing everything after a round that did not finish.
// MySQL/MariaDB only (the raw server is mysql2): BENCH_MYSQL_URL or TEST_MYSQL_URL; a fresh database is created
// and dropped. The embedded engine's session rate is in ADR 0043's history, not re-measured here.
import 'reflect-metadata';
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '../app/test-database';
import type { Ctx } from '../common/context';
import { configFrom } from '../config/config';
import { createService, type Service } from '../service';
import { LoopProbe, type ProbeReading } from './bench/loop-probe';
import type { RoundRequest, RoundResult } from './bench/session-driver';
import { countStatements } from './bench/statements';
import { type BenchOptions, type BenchRow, latencyRow, rateRow, runIfMain } from './bench/types';
import { freePort } from './free-port';

// BENCH_IN_FLIGHT=8 (or 8,32) runs only those concurrencies, e.g. to compare two builds at 8 back to back
const CONCURRENCY = process.env.BENCH_IN_FLIGHT
  ? process.env.BENCH_IN_FLIGHT.split(',').map(Number)
  : [8, 32, 64];
const here = path.dirname(fileURLToPath(import.meta.url));
// The children (driver, raw server) run with Node's own heap sizing: a young-generation flag given to measure the
// service (`tsx --max-semi-space-size=N src/tools/bench.ts sessions`, ADR 0061) applies to the service alone.
const childExecArgv = process.execArgv.filter((a) => !a.startsWith('--max-semi-space-size'));

/** The next message of `child`, or undefined after `ms`. */
function ask<T>(child: ChildProcess, msg: unknown, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('message', on);
      resolve(undefined);
    }, ms);
    const on = (m: unknown) => {
      clearTimeout(timer);
      resolve(m as T);
    };
    child.once('message', on);
    if (msg !== undefined) child.send(msg as never);
  });
}

const cpuSelf = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
/** utime + stime of another process, ms (fields 14 and 15 of /proc/<pid>/stat, in 100 Hz ticks). */
const cpuOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
};

const bounded = (p: Promise<unknown> | undefined, ms = 15_000): Promise<unknown> =>
  Promise.race([p?.catch(() => {}), new Promise((r) => setTimeout(r, ms).unref())]);

interface Tally {
  done: number;
  seconds: number;
  cpuMs: number;
  /** Round trips to the database. */
  statements: number;
  /** Statements those round trips carried (a multi-statement query counts each; ADR 0058). */
  executed: number;
  walletMs: number[];
  hookMs: number[];
  /** The database's own commit latencies during the side's slices (the driver's commit probe). */
  commitMs: number[];
  /** The service's event loop, GC and pool waits during its slices (the last one read). */
  probe?: ProbeReading;
  /** GC pauses over every slice of the side: count and total, ms. */
  gc: { count: number; ms: number };
  relay?: { claims: number; claimMs: number; claimedAtCommit: number; flushes: number; flushMs: number };
  dnf?: string;
}
const empty = (): Tally => ({
  done: 0,
  seconds: 0,
  cpuMs: 0,
  statements: 0,
  executed: 0,
  walletMs: [],
  hookMs: [],
  commitMs: [],
  gc: { count: 0, ms: 0 },
});

/** The p-th percentile (0..100) of `xs` (sorted here), 0 when empty. */
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
};

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  if (process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;
  const seconds = 2;
  const slices = opts.smoke ? 1 : Math.max(1, Math.round(Number(process.env.BENCH_SECONDS ?? 10) / seconds));
  const stallMs = (opts.smoke ? 20 : 30) * 1000;
  const db = await createTestDatabase('bench_sessions');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-sessions-'));
  let svc: Service | undefined;
  let driver: ChildProcess | undefined;
  let raw: ChildProcess | undefined;
  let closeCounter = () => {};
  let probe: LoopProbe | undefined;
  try {
    const port = await freePort();
    svc = await createService(
      configFrom({
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: db.url,
        LOG_LEVEL: 'error',
        RATE_LIMIT: '100000000/1',
      } as never),
    );
    await svc.listen();
    const base = `http://127.0.0.1:${port}`;
    const s = svc;
    const biz = await s.tenancy.createBusiness('Bench GmbH');
    const key = await s.tenancy.issueApiKey(biz.id, 'sandbox');
    const ctx: Ctx = {
      actor: { kind: 'api_key', apiKeyId: key.id, businessId: biz.id, environment: 'sandbox' },
      requestId: 'bench',
      clock: s.clock,
    };
    const wf = await s.workflows.create(ctx, {
      name: 'Bench identify',
      steps: [{ primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date'] }],
    });
    await s.workflows.publish(ctx, wf.id);

    driver = fork(path.join(here, 'bench/session-driver.ts'), {
      execArgv: childExecArgv,
      env: { ...process.env, BENCH_DB_URL: db.url, BENCH_DATA_DIR: dataDir },
    });
    const ready = await ask<{ receiverUrl: string; issuerKey: string; holderKey: string }>(
      driver,
      undefined,
      60_000,
    );
    if (!ready) throw new Error('the session driver did not start');
    const { secret } = await s.webhooks.configureEndpoint(ctx, ready.receiverUrl);
    driver.send({ cmd: 'secret', secret });
    raw = fork(path.join(here, 'bench/raw-session-server.ts'), {
      execArgv: childExecArgv,
      env: {
        ...process.env,
        RAW_DB_URL: db.url,
        RAW_ISSUER_KEY: ready.issuerKey,
        RAW_HOLDER_KEY: ready.holderKey,
        RAW_HOOK_URL: ready.receiverUrl,
        RAW_HOOK_SECRET: secret,
      },
    });
    const rawReady = await ask<{ url: string }>(raw, undefined, 60_000);
    if (!rawReady) throw new Error('the raw server did not start');
    const rawChild = raw;
    const counter = await countStatements(s.ds, { texts: false });
    closeCounter = () => counter.close();
    // the relay's pool is its own DataSource (service.ts), reached here only to time its connection waits
    const relayDs = (s.relay as unknown as { deps?: { ds?: typeof s.ds } }).deps?.ds;
    probe = new LoopProbe({ api: s.ds, relay: relayDs !== s.ds ? relayDs : undefined });
    const p = probe;

    const d = driver;
    const run = async (target: 'service' | 'raw', n: number, secs: number, into: Tally) => {
      const req: RoundRequest = {
        cmd: 'round',
        target,
        base: target === 'service' ? base : rawReady.url,
        apiKey: key.key,
        workflowId: wf.id,
        n,
        seconds: secs,
        stallMs,
      };
      await ask(rawChild, { cmd: 'statements' }, 10_000);
      counter.reset();
      p.reset();
      const rs0 = { ...s.relay.stats };
      const pid = rawChild.pid as number;
      const c0 = target === 'service' ? cpuSelf() : cpuOf(pid);
      const r = await ask<RoundResult>(d, req, 6 * stallMs + 10_000);
      const cpu = (target === 'service' ? cpuSelf() : cpuOf(pid)) - c0;
      if (target === 'service') {
        into.probe = p.read();
        into.gc.count += into.probe.gcCount;
        into.gc.ms += into.probe.gcMs;
        const rs = s.relay.stats;
        into.relay = {
          claims: (into.relay?.claims ?? 0) + rs.claims - rs0.claims,
          claimMs: (into.relay?.claimMs ?? 0) + rs.claimMs - rs0.claimMs,
          claimedAtCommit: (into.relay?.claimedAtCommit ?? 0) + rs.claimedAtCommit - rs0.claimedAtCommit,
          flushes: (into.relay?.flushes ?? 0) + rs.flushes - rs0.flushes,
          flushMs: (into.relay?.flushMs ?? 0) + rs.flushMs - rs0.flushMs,
        };
      }
      const stmts =
        target === 'service'
          ? (counter.count() ?? 0)
          : ((await ask<{ statements: number }>(rawChild, { cmd: 'statements' }, 10_000))?.statements ?? 0);
      // the raw server sends one statement per round trip
      const executed = target === 'service' ? (counter.statements() ?? 0) : stmts;
      if (!r || 'dnf' in r) {
        into.dnf = r ? r.dnf : 'the driver did not answer';
        return;
      }
      into.done += r.done;
      into.seconds += r.seconds;
      into.cpuMs += cpu;
      into.statements += stmts;
      into.executed += executed;
      into.walletMs.push(...r.walletMs);
      into.hookMs.push(...r.hookMs);
      into.commitMs.push(...r.commitMs);
    };
    // warm-up: JIT, pools, the status-list cache, on both sides
    await run('raw', 4, 1, empty());
    await run('service', 4, 1, empty());

    const rows: BenchRow[] = [];
    let serviceDown = false;
    for (const n of CONCURRENCY) {
      const svcT = empty();
      const rawT = empty();
      for (let i = 0; i < slices; i++) {
        // alternate which side goes first
        const order: Array<'raw' | 'service'> = i % 2 === 0 ? ['raw', 'service'] : ['service', 'raw'];
        for (const t of order) {
          if (t === 'raw') await run('raw', n, seconds, rawT);
          else if (!serviceDown && !svcT.dnf) await run('service', n, seconds, svcT);
        }
      }
      if (svcT.dnf || serviceDown) {
        svcT.dnf ??= 'not tried after a lower concurrency did not finish';
        serviceDown = true;
      }
      rows.push(...rowsFor(n, svcT, rawT));
    }
    return rows;
  } finally {
    closeCounter();
    probe?.close();
    if (driver?.connected) driver.send({ cmd: 'exit' });
    await bounded(svc?.close());
    raw?.kill();
    driver?.kill();
    await bounded(db.drop());
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function rowsFor(n: number, svc: Tally, raw: Tally): BenchRow[] {
  const perSec = (t: Tally) => (t.seconds > 0 ? t.done / t.seconds : 0);
  const each = (t: Tally, v: number) => (t.done > 0 ? v / t.done : 0);
  const at = `${n} in flight (MySQL)`;
  const rawName = 'raw node:http + mysql2, same round trips';
  const line = (t: Tally) =>
    t.dnf
      ? `DID NOT FINISH (${t.dnf})`
      : `${perSec(t).toFixed(1)}/s, ${each(t, t.cpuMs).toFixed(2)} ms CPU, wallet response p50/p99 ${pct(t.walletMs, 50).toFixed(1)}/${pct(t.walletMs, 99).toFixed(1)} ms, webhook after it p50/p99 ${pct(t.hookMs, 50).toFixed(1)}/${pct(t.hookMs, 99).toFixed(1)} ms, ${each(t, t.statements).toFixed(1)} round trips (${each(t, t.executed).toFixed(1)} statements), the database's own commit p99/max ${pct(t.commitMs, 99).toFixed(1)}/${Math.max(0, ...t.commitMs).toFixed(0)} ms`;
  console.error(`  ${at}: service ${line(svc)} | raw ${line(raw)}`);
  const pr = svc.probe;
  if (pr) {
    const pools = Object.entries(pr.pools)
      .map(([k, v]) => `${k} pool wait mean/max ${v.meanMs.toFixed(2)}/${v.maxMs.toFixed(1)} ms of ${v.n}`)
      .join(', ');
    const rl = svc.relay;
    console.error(
      `    service: GC over its slices ${svc.gc.count} pauses, ${each(svc, svc.gc.ms).toFixed(2)} ms per complete session; (last slice) event-loop delay p50/p99/max ${pr.loopP50.toFixed(1)}/${pr.loopP99.toFixed(1)}/${pr.loopMax.toFixed(1)} ms, GC ${pr.gcCount} pauses ${pr.gcMs.toFixed(0)} ms, ${pools}` +
        (rl
          ? `; relay ${rl.claims} claims (${(rl.claimMs / Math.max(1, rl.claims)).toFixed(1)} ms each), ${rl.claimedAtCommit} events sent under their commit's claim, ${rl.flushes} outcome writes (${(rl.flushMs / Math.max(1, rl.flushes)).toFixed(1)} ms each)`
          : ''),
    );
  }
  if (svc.dnf || raw.dnf) {
    const who = svc.dnf ? 'service' : 'raw server';
    return [
      {
        name: `complete sessions, ${at}: DID NOT FINISH (${who}: ${svc.dnf ?? raw.dnf})`,
        value: svc.dnf ? 0 : perSec(svc),
        unit: 'sessions/s',
        baseline: raw.dnf ? 0 : perSec(raw),
        baselineName: rawName,
        ratio: 0,
      },
    ];
  }
  const svcCpu = each(svc, svc.cpuMs);
  const rawCpu = each(raw, raw.cpuMs);
  const svcStmts = each(svc, svc.statements);
  const rawStmts = each(raw, raw.statements);
  return [
    rateRow(`complete sessions, ${at}`, perSec(svc), rawName, perSec(raw), 'sessions/s'),
    {
      name: `service CPU per complete session, ${at}`,
      value: svcCpu,
      unit: 'ms',
      baseline: rawCpu,
      baselineName: 'raw server CPU',
      ratio: svcCpu > 0 ? rawCpu / svcCpu : 0,
    },
    latencyRow(`wallet-response p50, ${at}`, pct(svc.walletMs, 50), 'raw server', pct(raw.walletMs, 50)),
    latencyRow(
      `wallet-response p99, ${at}`,
      pct(svc.walletMs, 99),
      'raw server',
      pct(raw.walletMs, 99),
      'ms',
      n === 8 ? '<= 50 ms' : undefined,
    ),
    latencyRow(`webhook after the answer p50, ${at}`, pct(svc.hookMs, 50), 'raw server', pct(raw.hookMs, 50)),
    latencyRow(`webhook after the answer p99, ${at}`, pct(svc.hookMs, 99), 'raw server', pct(raw.hookMs, 99)),
    {
      name: `statements per complete session, ${at}`,
      value: svcStmts,
      unit: 'stmts',
      baseline: rawStmts,
      baselineName: 'raw server',
      ratio: svcStmts > 0 ? rawStmts / svcStmts : 0,
    },
    {
      // the row above counts round trips; a batched transition carries several statements in one (ADR 0058)
      name: `statements executed per complete session, ${at}`,
      value: each(svc, svc.executed),
      unit: 'stmts',
      baseline: rawStmts,
      baselineName: 'raw server',
      ratio: svc.executed > 0 ? rawStmts / each(svc, svc.executed) : 0,
    },
  ];
}

runIfMain(import.meta.url, bench);
