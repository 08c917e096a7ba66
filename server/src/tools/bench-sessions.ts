// Benchmark: complete sessions per second on one node, end to end, the number a business sizing the service
// asks for. One session: POST /v1/sessions -> the person's browser opens the hosted page, starts, fetches the
// wallet request -> the sandbox wallet answers (SD-JWT VC, identify) -> the service verifies it, signs the
// audit record in the KMS and writes the outbox -> the relay delivers step.completed and session.completed to
// a real HTTP receiver that checks each signature. SESSIONS_IN_FLIGHT sessions run at once.
// Baseline, measured in the same run in slices around the sessions: the sum of the raw costs of a session's
// parts: one raw mysql2 INSERT of a session row, two raw ES256 verifies (the credential's issuer signature and
// the key-binding JWT; the status list is cached) and two raw HMAC-signed POSTs to the same receiver. The
// baseline rate is 1 / (that sum of per-item times at the same concurrency).
// Where the CPU goes: a serial pass measures this process's CPU per phase of one session, and a second serial
// pass under V8's sampling profiler charges it to HTTP+DB, verification, the audit record and its signature,
// webhook signing and sending, and the test side. Everything (service, receiver, wallet, the person's browser)
// runs in this process, so the CPU per session includes the test wallet and the client side; both tables show
// each share. The serial pass also counts statements per phase on MySQL (tools/bench/statements.ts; the
// exact per-request budget is test/api/statement-budget.test.ts).
// More in flight (ADR 0045): after the 8-in-flight rows, 32 and 64 sessions at once, the pool hang's guard. Every
// round is bounded: when no session completes for 20 s (smoke; 30 s full), or after six times that, it aborts its
// calls and its row reads DID NOT FINISH (64 is not tried after 32 did not finish), so the bench never hangs CI.
// Not yet done (issue 27): the wallet in a separate process and a raw node:http + mysql2 server doing the whole
// session's round trips; the baseline is still the sum of the raw parts at 8 in flight.
// Engines: BENCH_SESSIONS_DB=mysql,embedded (the default, both, one row pair each). MySQL/MariaDB at
// BENCH_MYSQL_URL or TEST_MYSQL_URL (a fresh database is created and dropped); the embedded engine is a SQLite
// file in a temp DATA_DIR, its raw insert a prepared INSERT on a second libsql connection to the same file.
import 'reflect-metadata';
import { createHmac, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import mysql from 'mysql2/promise';
import type { Ctx } from '../common/context';
import { configFrom } from '../config/config';
import { BUSY_TIMEOUT_MS } from '../db/sqlite-engine';
import { createTestDatabase, type TestDatabase } from '../db/test-database';
import { createService, type Service } from '../service';
import { type Classifier, cpuShares } from './bench/cpu-share';
import { Browser, Receiver } from './bench/session-parts';
import { countStatements } from './bench/statements';
import { type BenchOptions, type BenchRow, rateRow, runIfMain } from './bench/types';

const SESSIONS_IN_FLIGHT = 8;

type Engine = 'mysql' | 'embedded';

const TEST_SIDE = 'test side (browser, wallet, receiver)';
/** Categories a frame anywhere in a sample's stack decides, in this order. */
const CATEGORIES: Array<[string, RegExp]> = [
  [TEST_SIDE, /\/tools\/bench|\/modules\/sandbox\//],
  ['verification', /\/modules\/verification\/|@sd-jwt\//],
  ['audit record + KMS signature', /\/modules\/(audit|kms)\//],
  ['webhook signing + sending', /\/modules\/webhook\//],
  ['HTTP + DB (rest of the service)', /\/server\/src\/|\/node_modules\/.*(typeorm|mysql2|libsql)/],
  [TEST_SIDE, /undici/], // the browser's fetch, resumed from the socket with no frame of ours above it
];
const classify: Classifier = (frames) => {
  const leaf = frames[0]?.functionName;
  if (leaf === '(idle)') return undefined;
  for (const [name, re] of CATEGORIES) if (frames.some((f) => re.test(f.url))) return name;
  return leaf === '(garbage collector)' ? 'GC' : 'node runtime (HTTP parsing, sockets, timers)';
};

interface Phases {
  create: number;
  open: number;
  request: number;
  wallet: number;
  verify: number;
  deliver: number;
}

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000; // ms
};

interface Rate {
  perSec: number;
  /** This process's CPU per completion, ms. */
  cpuMs: number;
}

/**
 * Runs `n` workers that each repeat `one` until `seconds` pass: completions per second and CPU each. Bounded:
 * when no call has completed for `stallMs` (the service stopped answering; a slow but working service keeps
 * completing), or `6 * stallMs` have passed in all, every call still waiting is aborted and the round answers
 * undefined ("did not finish") instead of hanging the bench.
 */
async function rate(
  seconds: number,
  n: number,
  one: (signal: AbortSignal) => Promise<unknown>,
  stallMs = 60_000,
): Promise<Rate | undefined> {
  const end = performance.now() + seconds * 1000;
  const stop = new AbortController();
  let progress = performance.now();
  const watchdog = setInterval(() => {
    if (performance.now() - progress > stallMs) stop.abort(new Error('stalled'));
  }, 500);
  const cap = setTimeout(() => stop.abort(new Error('too long')), 6 * stallMs);
  let done = 0;
  const t0 = performance.now();
  const c0 = cpuNow();
  try {
    await Promise.all(
      Array.from({ length: n }, async () => {
        while (performance.now() < end) {
          await one(stop.signal);
          done++;
          progress = performance.now();
        }
      }),
    );
  } catch (e) {
    if (stop.signal.aborted) return undefined;
    throw e;
  } finally {
    clearInterval(watchdog);
    clearTimeout(cap);
  }
  return { perSec: done / ((performance.now() - t0) / 1000), cpuMs: (cpuNow() - c0) / Math.max(1, done) };
}

/** Waits for `p` at most `ms`. */
const bounded = (p: Promise<unknown> | undefined, ms = 15_000): Promise<unknown> =>
  Promise.race([p?.catch(() => {}), new Promise((r) => setTimeout(r, ms).unref())]);

/** The raw parts' rounds never hang (no service in them). */
const must = (r: Rate | undefined): Rate => {
  if (!r) throw new Error('a raw round did not finish');
  return r;
};

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  if (process.env.BENCH_MYSQL_URL) process.env.TEST_MYSQL_URL = process.env.BENCH_MYSQL_URL;
  const engines = (process.env.BENCH_SESSIONS_DB ?? 'mysql,embedded').split(',') as Engine[];
  const rows: BenchRow[] = [];
  for (const engine of engines) rows.push(...(await benchOn(engine, opts)));
  return rows;
}

/** A raw INSERT of a session row on the engine's own driver, beside the service on the same database. */
function rawInserter(engine: Engine, db: TestDatabase | undefined, dataDir: string) {
  const sql =
    'INSERT INTO session (id, business_id, environment, workflow_id, workflow_revision, status, version, current_stage, metadata, expires_at, step_expires_at, binding_hash, created_at, updated_at, ended_at) VALUES (?, ?, ?, ?, 1, ?, 0, 0, NULL, ?, NULL, NULL, ?, ?, NULL)';
  const id = () => `sess_${randomBytes(13).toString('hex')}`;
  if (engine === 'mysql' && db) {
    const pool = mysql.createPool({ uri: db.url, connectionLimit: SESSIONS_IN_FLIGHT, timezone: 'Z' });
    return {
      insert: async (workflowId: string) => {
        const now = new Date();
        await pool.execute(sql, [id(), 'biz_raw', 'sandbox', workflowId, 'created', now, now, now]);
      },
      close: () => pool.end(),
    };
  }
  const lite = new Database(path.join(dataDir, 'service.sqlite'), { timeout: BUSY_TIMEOUT_MS });
  lite.pragma('journal_mode = WAL');
  lite.pragma('synchronous = NORMAL');
  const stmt = lite.prepare(sql);
  const text = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', ''); // TypeORM's SQLite datetime
  return {
    insert: async (workflowId: string) => {
      const now = text(new Date());
      stmt.run(id(), 'biz_raw', 'sandbox', workflowId, 'created', now, now, now);
    },
    close: async () => lite.close(),
  };
}

async function benchOn(engine: Engine, opts: BenchOptions): Promise<BenchRow[]> {
  const seconds = opts.smoke ? 3 : Number(process.env.BENCH_SECONDS ?? 10);
  const db = engine === 'mysql' ? await createTestDatabase('bench_sessions') : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-sessions-'));
  const receiver = new Receiver();
  await receiver.start();
  let svc: Service | undefined;
  let raw: ReturnType<typeof rawInserter> | undefined;
  let closeCounter = () => {};
  try {
    const port = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(p));
      });
    });
    svc = await createService(
      configFrom({
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        ...(db ? { DATABASE_URL: db.url } : {}),
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
    receiver.secret = (await s.webhooks.configureEndpoint(ctx, receiver.url)).secret;

    const createBody = JSON.stringify({ workflow_id: wf.id });
    const phases: Phases = { create: 0, open: 0, request: 0, wallet: 0, verify: 0, deliver: 0 };
    const walls: Phases = { create: 0, open: 0, request: 0, wallet: 0, verify: 0, deliver: 0 };
    const stmts: Phases = { create: 0, open: 0, request: 0, wallet: 0, verify: 0, deliver: 0 };
    // statements per phase (MySQL: every mysql2 round trip of this process, the test wallet's included)
    const counter = await countStatements(s.ds);
    closeCounter = () => counter.close();
    /**
     * One whole session; with `measure`, this process's CPU, wall time and statements per phase are added to
     * `phases`, `walls` and `stmts` (serial runs only). `signal` aborts every call still waiting.
     */
    const session = async (measure = false, signal?: AbortSignal): Promise<void> => {
      let t = measure ? cpuNow() : 0;
      let w = performance.now();
      if (measure) counter.reset();
      const lap = (p: keyof Phases) => {
        if (!measure) return;
        stmts[p] += counter.count() ?? 0;
        counter.reset();
        const now = cpuNow();
        phases[p] += now - t;
        t = now;
        const wall = performance.now();
        walls[p] += wall - w;
        w = wall;
      };
      const created = await fetch(`${base}/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: createBody,
        signal,
      });
      const { id } = (await created.json()) as { id: string };
      if (created.status !== 201) throw new Error(`create: ${created.status}`);
      lap('create');
      const done = receiver.completed(id, signal);
      done.catch(() => {}); // awaited below; an abort before then is not unhandled
      const browser = new Browser(base, id, signal);
      await browser.call('POST', '/open');
      await browser.read();
      await browser.call('POST', '/start');
      await browser.read();
      lap('open');
      const wr = await browser.call('POST', '/wallet-request');
      lap('request');
      const response = await s.wallet.respond({
        persona: 'adult',
        request: wr.request as Record<string, unknown>,
        origin: base,
      });
      lap('wallet');
      await browser.call('POST', '/wallet-response', { request_id: wr.request_id, response });
      await browser.read();
      lap('verify');
      await done;
      receiver.forget(id);
      lap('deliver');
    };

    // Raw parts, each at the same concurrency as the sessions.
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const msg = randomBytes(600);
    const sig = sign('sha256', msg, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const rawVerify = async () => verify('sha256', msg, { key: publicKey, dsaEncoding: 'ieee-p1363' }, sig);
    raw = rawInserter(engine, db, dataDir);
    const rawInsert = raw.insert.bind(null, wf.id);
    const agent = new http.Agent({ keepAlive: true, maxSockets: SESSIONS_IN_FLIGHT });
    const postBody = JSON.stringify({ event: 'raw', data: { pad: 'x'.repeat(400) } });
    const rawPost = () =>
      new Promise<void>((resolve, reject) => {
        const ts = Math.floor(Date.now() / 1000);
        const mac = createHmac('sha256', receiver.secret).update(`${ts}.${postBody}`).digest('hex');
        const req = http.request(
          receiver.url,
          {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'x-service-timestamp': String(ts),
              'x-service-signature': `v1=${mac}`,
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 200 ? resolve() : reject(new Error(`${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(postBody);
      });

    // warm-up: JIT, pools, the status-list cache
    for (let i = 0; i < 5; i++) await session();
    const slices = Math.max(1, Math.round(seconds / 2));
    const sum = { sessions: { perSec: 0, cpuMs: 0 }, insert: { perSec: 0, cpuMs: 0 } } as Record<
      string,
      Rate
    >;
    const add = (k: string, r: Rate) => {
      const a = sum[k] ?? { perSec: 0, cpuMs: 0 };
      sum[k] = { perSec: a.perSec + r.perSec / slices, cpuMs: a.cpuMs + r.cpuMs / slices };
    };
    const stallMs = (opts.smoke ? 20 : 30) * 1000;
    let hung = false;
    for (let i = 0; i < slices && !hung; i++) {
      add('insert', must(await rate(0.5, SESSIONS_IN_FLIGHT, rawInsert)));
      add('verify', must(await rate(0.25, 1, rawVerify)));
      add('post', must(await rate(0.5, SESSIONS_IN_FLIGHT, rawPost)));
      const r = await rate(2, SESSIONS_IN_FLIGHT, (sig) => session(false, sig), stallMs);
      if (r) add('sessions', r);
      else hung = true;
    }
    const {
      sessions,
      insert,
      verify: es256,
      post,
    } = sum as Record<'sessions' | 'insert' | 'verify' | 'post', Rate>;
    // a session's raw parts, one after the other: 1 insert, 2 verifies, 2 signed POSTs
    const baselineSeconds = 1 / insert.perSec + 2 / es256.perSec + 2 / post.perSec;
    const baselineCpu = insert.cpuMs + 2 * es256.cpuMs + 2 * post.cpuMs;
    const on = engine === 'mysql' ? 'MySQL' : 'embedded';
    const baselineName = 'raw insert + 2 ES256 verify + 2 signed POST';
    const dnf = (n: number): BenchRow => ({
      name: `complete sessions, ${n} in flight (${on}): DID NOT FINISH (no session completed for ${stallMs / 1000} s)`,
      value: 0,
      unit: 'sessions/s',
      baseline: 1 / baselineSeconds,
      baselineName,
      ratio: 0,
    });
    if (hung) return [dnf(SESSIONS_IN_FLIGHT)];

    // where the CPU of one session goes (serial, so each phase's CPU is its own)
    const serial = opts.smoke ? 10 : 40;
    for (let i = 0; i < serial; i++) await session(true);
    const share = Object.entries(phases).map(
      ([k, v]) =>
        `${k} ${(v / serial).toFixed(2)} ms CPU / ${(walls[k as keyof Phases] / serial).toFixed(1)} ms wall`,
    );
    console.error(
      `  sessions: ${sessions.perSec.toFixed(1)}/s at ${SESSIONS_IN_FLIGHT} in flight, ${sessions.cpuMs.toFixed(1)} ms CPU each (this process)` +
        `\n  raw parts: insert ${(1000 / insert.perSec).toFixed(2)} ms (${insert.cpuMs.toFixed(2)} ms CPU), ES256 verify ${(1000 / es256.perSec).toFixed(3)} ms, signed POST ${(1000 / post.perSec).toFixed(2)} ms (${post.cpuMs.toFixed(2)} ms CPU)` +
        `\n  CPU per phase of one session (serial): ${share.join(', ')}`,
    );
    if (engine === 'mysql') {
      const total = Object.values(stmts).reduce((a, n) => a + n, 0) / serial;
      console.error(
        `  statements per session (serial; open = open + read + start + read, verify = response + read, wallet = the test wallet's): ${Object.entries(
          stmts,
        )
          .map(([k, n]) => `${k} ${(n / serial).toFixed(1)}`)
          .join(', ')}; ${total.toFixed(1)} in all`,
      );
    }
    // the same serial sessions again under the sampling profiler: each part's share of the samples times this
    // process's CPU over the pass (samples count wall time while the thread runs, so only shares are kept)
    let passCpu = 0;
    const where = await cpuShares(
      async () => {
        const c0 = cpuNow();
        for (let i = 0; i < serial; i++) await session();
        passCpu = (cpuNow() - c0) / serial;
      },
      classify,
      process.env.BENCH_CPU_PROFILE &&
        path.join(process.env.BENCH_CPU_PROFILE, `sessions-${engine}.cpuprofile`),
    );
    const sampled = [...where.values()].reduce((a, ms) => a + ms, 0);
    const parts = [...where].sort((a, b) => b[1] - a[1]);
    console.error(
      `  CPU per session by part (sampled, ${passCpu.toFixed(1)} ms CPU each with the profiler on): ${parts.map(([k, ms]) => `${k} ${((passCpu * ms) / sampled).toFixed(1)} ms`).join(', ')}`,
    );
    // more in flight: the pool hang's guard (a bench row, bounded; 64 is skipped once 32 did not finish)
    const more: BenchRow[] = [];
    for (const n of [32, 64]) {
      const r = more.some((row) => row.ratio === 0)
        ? undefined
        : await rate(opts.smoke ? 1 : 2, n, (sig) => session(false, sig), stallMs);
      more.push(
        r
          ? rateRow(
              `complete sessions, ${n} in flight (${on})`,
              r.perSec,
              baselineName,
              1 / baselineSeconds,
              'sessions/s',
            )
          : dnf(n),
      );
      if (r) console.error(`  ${n} in flight: ${r.perSec.toFixed(1)}/s, ${r.cpuMs.toFixed(1)} ms CPU each`);
    }
    return [
      rateRow(
        `complete sessions, end to end (${on})`,
        sessions.perSec,
        baselineName,
        1 / baselineSeconds,
        'sessions/s',
      ),
      {
        name: `CPU per complete session (${on})`,
        value: sessions.cpuMs,
        unit: 'ms',
        baseline: baselineCpu,
        baselineName: 'CPU of the raw parts',
        ratio: baselineCpu / sessions.cpuMs,
      },
      ...more,
    ];
  } finally {
    closeCounter();
    // bounded: after a round that did not finish, the service may never close nor the database drop
    await bounded(svc?.close());
    await bounded(raw?.close());
    await receiver.stop();
    await bounded(db?.drop());
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, bench);
