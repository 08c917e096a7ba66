// Benchmark: webhook relay throughput and commit-to-receipt latency, each against a baseline measured in the same
// run: a plain loop POSTing the same signed bodies (HMAC per request, one kept-alive connection) to the same
// receiver. The receiver is a separate Node process, so neither side shares the other's event loop.
// Run alone: pnpm --filter server exec tsx src/tools/bench-relay.ts [--smoke]
// Database: a fresh database on BENCH_MYSQL_URL or TEST_MYSQL_URL (server URL) when set, else embedded SQLite.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../app/database';
import { createTestDatabase } from '../app/test-database';
import { systemClock } from '../common/clock';
import { newId } from '../common/ids';
import { createLogger } from '../common/logger';
import { transactionWithRetry } from '../db/data-source';
import { KeySealer } from '../modules/kms/key-sealer';
import { enqueueEvent } from '../modules/webhook/outbox';
import { WebhookSecretBox } from '../modules/webhook/secret-box';
import { WebhookRelay } from '../modules/webhook/webhook.relay';
import { deliveryHeaders } from '../modules/webhook/webhook.sender';
import { processCpuSeconds } from './bench/load';
import type { BenchRow } from './bench/types';

const SECRET = 'whsec_bench_relay';
/** The endpoint's secret is stored sealed, as the service stores it (the relay opens it per attempt). */
const secrets = new WebhookSecretBox(new KeySealer(randomBytes(32)));
const ENDPOINT = newId('whep');
const BUSINESS = 'biz_bench_relay';

/** The receiver: answers 200 at once, counts deliveries, and records commit-to-receipt from the body's t0. */
const RECEIVER_SRC = `
const http = require('node:http');
let count = 0; let lat = [];
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    const s = [...lat].sort((a, b) => a - b);
    const q = (p) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0);
    res.end(JSON.stringify({ count, p50: q(0.5), p99: q(0.99), n: s.length }));
    return;
  }
  if (req.url === '/reset') { count = 0; lat = []; res.end(); return; }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    count++;
    const body = Buffer.concat(chunks).toString();
    const at = body.indexOf('"t0":');
    if (at >= 0) lat.push(Date.now() - Number.parseInt(body.slice(at + 5), 10));
    res.writeHead(200, { 'Content-Length': '0' }).end();
  });
});
server.keepAliveTimeout = 30000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

interface Receiver {
  url: string;
  stats(): Promise<{ count: number; p50: number; p99: number; n: number }>;
  reset(): Promise<void>;
  close(): void;
}

async function startReceiver(): Promise<Receiver> {
  const child = spawn(process.execPath, ['-e', RECEIVER_SRC], { stdio: ['ignore', 'pipe', 'ignore'] });
  const kill = () => child.kill();
  process.once('exit', kill); // never leave the receiver behind, even when the bench fails
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    child.once('exit', () => reject(new Error('receiver exited')));
  });
  const base = `http://127.0.0.1:${port}`;
  const call = (method: string, p: string) =>
    new Promise<string>((resolve, reject) => {
      const req = http.request(`${base}${p}`, { method, agent: false }, (res) => {
        let s = '';
        res.on('data', (c) => {
          s += c;
        });
        res.on('end', () => resolve(s));
      });
      req.on('error', reject);
      req.end();
    });
  return {
    url: `${base}/hook`,
    stats: async () => JSON.parse(await call('GET', '/stats')),
    reset: async () => {
      await call('POST', '/reset');
    },
    close: () => child.kill(),
  };
}

interface Db {
  ds: DataSource;
  relayDs: DataSource;
  label: string;
  close(): Promise<void>;
}

async function openDb(): Promise<Db> {
  const server = process.env.BENCH_MYSQL_URL ?? process.env.TEST_MYSQL_URL;
  if (server) {
    const db = await createTestDatabase('bench_relay');
    const ds = await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' });
    await ds.initialize();
    await ds.runMigrations();
    // As in service.ts: the relay on its own small pool.
    const relayDs = await createDataSource(
      { databaseUrl: db.url, dataDir: '/nonexistent' },
      { poolSize: 6, multipleStatements: true },
    );
    await relayDs.initialize();
    return {
      ds,
      relayDs,
      label: 'MySQL',
      close: async () => {
        await relayDs.destroy();
        await ds.destroy();
        await db.drop();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-relay-'));
  const ds = await createDataSource({ databaseUrl: undefined, dataDir: dir });
  await ds.initialize();
  await ds.runMigrations();
  return {
    ds,
    relayDs: ds,
    label: 'SQLite',
    close: async () => {
      await ds.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Queues `n` events of distinct sessions in multi-row inserts (the relay's cost, not the producer's, is measured). */
async function seed(ds: DataSource, n: number): Promise<string[]> {
  const now = new Date();
  const bodies: string[] = [];
  const sqlite = ds.options.type === 'better-sqlite3';
  const t = sqlite ? now.toISOString().replace('T', ' ').replace('Z', '') : now;
  for (let off = 0; off < n; off += 500) {
    const rows: unknown[][] = [];
    for (let i = off; i < Math.min(n, off + 500); i++) {
      const session = newId('sess');
      const deliveryId = `${session}:session.completed:0`;
      const body = JSON.stringify({
        event: 'session.completed',
        delivery_id: deliveryId,
        data: { session_id: session, status: 'completed' },
      });
      bodies.push(body);
      rows.push([
        newId('whevt'),
        BUSINESS,
        'sandbox',
        session,
        0,
        'session.completed',
        0,
        deliveryId,
        body,
        t,
      ]);
    }
    await ds.query(
      `INSERT INTO webhook_event (id, business_id, environment, session_id, sequence, event, counter, delivery_id,
         body, status, attempts, next_attempt_at, created_at)
       VALUES ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)").join(', ')}`,
      rows.flatMap((r) => [...r, r[9]]),
    );
  }
  return bodies;
}

/** The baseline: one request at a time, signed like the relay signs, over one kept-alive connection. */
async function rawLoop(url: string, bodies: string[]): Promise<{ perSec: number; p50: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lat: number[] = [];
  const start = performance.now();
  for (const body of bodies) {
    const t0 = performance.now();
    const headers = deliveryHeaders(
      { event: 'session.completed', deliveryId: 'x', body },
      [SECRET],
      Math.floor(Date.now() / 1000),
    );
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    lat.push(performance.now() - t0);
  }
  const secs = (performance.now() - start) / 1000;
  agent.destroy();
  lat.sort((a, b) => a - b);
  return { perSec: bodies.length / secs, p50: lat[Math.floor(lat.length / 2)] };
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('bench-relay: deliveries did not arrive in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function bench(opts: { smoke: boolean }): Promise<BenchRow[]> {
  const n = Number(process.env.BENCH_RELAY_EVENTS ?? (opts.smoke ? 400 : 20_000));
  const rate = 300; // events per second for the latency run (the 200-400/s band)
  const seconds = opts.smoke ? 1 : 6;
  const receiver = await startReceiver();
  const db = await openDb();
  const logger = createLogger(process.env.BENCH_RELAY_DEBUG ? 'warn' : 'silent');
  try {
    await db.ds.query(
      `INSERT INTO webhook_endpoint (id, business_id, environment, url, secret, created_at, updated_at)
       VALUES (?, ?, 'sandbox', ?, ?, ?, ?)`,
      [
        ENDPOINT,
        BUSINESS,
        receiver.url,
        secrets.seal(ENDPOINT, SECRET),
        ...(db.label === 'SQLite'
          ? ['2025-01-01 00:00:00.000', '2025-01-01 00:00:00.000']
          : [new Date(), new Date()]),
      ],
    );

    // 1. Throughput: a queue of n events, drained by the relay's background pipeline.
    const bodies = await seed(db.ds, n);
    // BENCH_RELAY_CONCURRENCY: the relay's in-flight window (default: the relay's own default)
    const concurrency = process.env.BENCH_RELAY_CONCURRENCY
      ? Number(process.env.BENCH_RELAY_CONCURRENCY)
      : undefined;
    const relay = new WebhookRelay({
      ds: db.relayDs,
      clock: systemClock,
      logger,
      allowPrivateTargets: true,
      secrets,
      concurrency,
    });
    // CPU per delivery (this process: the relay; and the database server's with BENCH_DB_PID): on a machine shared
    // with other work the rates swing with the load, CPU per delivery much less.
    const dbPid = process.env.BENCH_DB_PID ? Number(process.env.BENCH_DB_PID) : undefined;
    const dbCpu = () => (dbPid ? processCpuSeconds(dbPid) : Number.NaN);
    const cpu0 = process.cpuUsage();
    const db0 = dbCpu();
    const t0 = performance.now();
    relay.start(50);
    await until(async () => (await receiver.stats()).count >= n, 600_000);
    const relaySecs = (performance.now() - t0) / 1000;
    await relay.stop();
    const relayCpu = process.cpuUsage(cpu0);
    const relayCpuUs = (relayCpu.user + relayCpu.system) / n;
    const relayDbUs = ((dbCpu() - db0) * 1e6) / n;
    if (process.env.BENCH_RELAY_DEBUG) console.error('relay stats', relay.stats);
    const relayPerSec = n / relaySecs;
    await receiver.reset();
    const loopCpu0 = process.cpuUsage();
    const loop = await rawLoop(receiver.url, bodies);
    const loopCpu = process.cpuUsage(loopCpu0);
    const loopCpuUs = (loopCpu.user + loopCpu.system) / n;
    await receiver.reset();

    // 2. Commit-to-receipt at a steady `rate` events/s, each committed through the outbox like a state change.
    const live = new WebhookRelay({
      ds: db.relayDs,
      clock: systemClock,
      logger,
      allowPrivateTargets: true,
      secrets,
      concurrency,
    });
    live.start(500);
    const total = rate * seconds;
    let produced = 0;
    let chain: Promise<unknown> = Promise.resolve();
    const tick = 20;
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * rate));
        // One transaction per event, as a state change writes it; on SQLite (one connection) one at a time.
        const commits: (() => Promise<unknown>)[] = [];
        for (; produced < due; produced++) {
          const session = newId('sess');
          commits.push(() =>
            transactionWithRetry(db.ds, (m) =>
              enqueueEvent(m, {
                businessId: BUSINESS,
                environment: 'sandbox',
                sessionId: session,
                event: 'session.completed',
                data: { t0: Date.now(), session_id: session },
                now: new Date(),
              }),
            ),
          );
        }
        chain = (
          db.label === 'SQLite'
            ? chain.then(async () => {
                for (const c of commits) await c();
              })
            : Promise.all([chain, ...commits.map((c) => c())])
        )
          .then(() => live.kick())
          .catch(reject);
        if (produced >= total) {
          clearInterval(timer);
          chain.then(() => resolve(), reject);
        }
      }, tick);
    });
    await until(async () => (await receiver.stats()).count >= total, 120_000);
    const latency = await receiver.stats();
    await live.stop();

    const db_ = db.label;
    return [
      {
        name: `relay deliveries/s (${db_})`,
        value: relayPerSec,
        unit: '/s',
        baseline: loop.perSec,
        baselineName: 'signed-POST loop /s',
        ratio: relayPerSec / loop.perSec,
        goal: '>= 2000/s and >= 0.5',
      },
      {
        name: `relay CPU per delivery (${db_})`,
        value: relayCpuUs,
        unit: 'µs',
        baseline: loopCpuUs,
        baselineName: 'signed-POST loop CPU per POST',
        ratio: loopCpuUs / relayCpuUs,
        goal: 'info (>= 0.5 leaves room)',
      },
      ...(dbPid
        ? [
            {
              name: `relay database CPU per delivery (${db_})`,
              value: relayDbUs,
              unit: 'µs',
              baseline: loopCpuUs,
              baselineName: 'signed-POST loop CPU per POST',
              ratio: loopCpuUs / relayDbUs,
              goal: 'info',
            },
          ]
        : []),
      {
        name: `relay commit-to-receipt p50 @${rate}/s (${db_})`,
        value: latency.p50,
        unit: 'ms',
        baseline: loop.p50,
        baselineName: 'signed-POST loop p50 ms',
        ratio: loop.p50 / Math.max(latency.p50, 0.001),
        goal: 'flat (no backlog)',
      },
      {
        name: `relay commit-to-receipt p99 @${rate}/s (${db_})`,
        value: latency.p99,
        unit: 'ms',
        baseline: loop.p50,
        baselineName: 'signed-POST loop p50 ms',
        ratio: loop.p50 / Math.max(latency.p99, 0.001),
        goal: 'flat (no backlog)',
      },
    ];
  } finally {
    receiver.close();
    await db.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  bench({ smoke: process.argv.includes('--smoke') })
    .then((rows) => {
      for (const r of rows)
        console.log(
          `${r.name.padEnd(48)} ${r.value.toFixed(1).padStart(9)} ${r.unit.padEnd(3)} baseline ${r.baseline
            .toFixed(1)
            .padStart(9)} (${r.baselineName})  ratio ${r.ratio.toFixed(2)}  goal ${r.goal ?? ''}`,
        );
      process.exit(0);
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
