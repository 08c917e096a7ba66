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
// each share.
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
import { verifyWebhookSignature } from '../modules/webhook/signature';
import { createService, type Service } from '../service';
import { type Classifier, cpuShares } from './bench/cpu-share';
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

/** The person's browser on the hosted transport: a cookie jar over fetch. */
class Browser {
  private cookie = '';
  constructor(
    private readonly base: string,
    private readonly id: string,
  ) {}
  async call(method: string, suffix: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.base}/t/sessions/${this.id}${suffix}`, {
      method,
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] as string;
    const out = (res.status === 204 ? {} : await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${suffix}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  }
  /** The page's read of its session (GraphQL signerSession), on load and after each /t mutation. */
  async read(): Promise<void> {
    const res = await fetch(`${this.base}/graphql`, {
      method: 'POST',
      headers: { cookie: this.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ query: SIGNER_READ, variables: { id: this.id } }),
    });
    const out = (await res.json()) as { data?: { signerSession?: { status?: string } } };
    if (!out.data?.signerSession?.status) throw new Error(`signerSession: ${JSON.stringify(out)}`);
  }
}

/** The part of the page's signerSession read a session's run depends on. */
const SIGNER_READ =
  'query($id: ID!) { signerSession(sessionId: $id) { id status currentStage steps { stage primitive } walletRequests { transport path } } }';

/** A webhook receiver that checks every signature and resolves when a session's completion arrives. */
class Receiver {
  private server?: http.Server;
  private readonly waiting = new Map<string, () => void>();
  secret = '';
  url = '';
  received = 0;
  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const ok =
          this.secret === '' ||
          verifyWebhookSignature({
            secret: this.secret,
            signatureHeader: req.headers['x-service-signature'] as string,
            timestamp: req.headers['x-service-timestamp'] as string,
            body,
            now: new Date(),
          });
        res.writeHead(ok ? 200 : 401);
        res.end();
        if (!ok) return;
        this.received++;
        const ev = JSON.parse(body) as { event: string; data: { session_id?: string; id?: string } };
        const sid = ev.data.session_id ?? ev.data.id;
        if (ev.event === 'session.completed' && sid) this.waiting.get(sid)?.();
      });
    });
    server.keepAliveTimeout = 60_000;
    this.server = server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  }
  completed(sessionId: string): Promise<void> {
    return new Promise((resolve) => this.waiting.set(sessionId, resolve));
  }
  forget(sessionId: string): void {
    this.waiting.delete(sessionId);
  }
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

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

/** Runs `n` workers that each repeat `one` until `seconds` pass: completions per second and CPU each. */
async function rate(seconds: number, n: number, one: () => Promise<unknown>): Promise<Rate> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const t0 = performance.now();
  const c0 = cpuNow();
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (performance.now() < end) {
        await one();
        done++;
      }
    }),
  );
  return { perSec: done / ((performance.now() - t0) / 1000), cpuMs: (cpuNow() - c0) / Math.max(1, done) };
}

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
    /** One whole session; with `measure`, this process's CPU per phase is added to `phases` (serial runs only). */
    const session = async (measure = false): Promise<void> => {
      let t = measure ? cpuNow() : 0;
      let w = performance.now();
      const lap = (p: keyof Phases) => {
        if (!measure) return;
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
      });
      const { id } = (await created.json()) as { id: string };
      if (created.status !== 201) throw new Error(`create: ${created.status}`);
      lap('create');
      const done = receiver.completed(id);
      const browser = new Browser(base, id);
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
    for (let i = 0; i < slices; i++) {
      add('insert', await rate(0.5, SESSIONS_IN_FLIGHT, rawInsert));
      add('verify', await rate(0.25, 1, rawVerify));
      add('post', await rate(0.5, SESSIONS_IN_FLIGHT, rawPost));
      add('sessions', await rate(2, SESSIONS_IN_FLIGHT, () => session()));
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
    const on = engine === 'mysql' ? 'MySQL' : 'embedded';
    return [
      rateRow(
        `complete sessions, end to end (${on})`,
        sessions.perSec,
        'raw insert + 2 ES256 verify + 2 signed POST',
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
    ];
  } finally {
    await svc?.close();
    await raw?.close();
    await receiver.stop();
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, bench);
