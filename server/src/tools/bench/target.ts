// A server under test for tools/bench-api.ts, run in its own process. Prints one JSON line when ready.
//   service     the real service (createService) on DATABASE_URL, seeded with a business, key, workflow,
//               webhook endpoint and BENCH_SESSIONS sessions to read
//   raw-insert  the create baseline: node:http, JSON body parsed, one mysql2 INSERT into the same session table
//   raw-select  the GET baseline: node:http, one mysql2 primary-key SELECT of a session row, JSON out
//   raw-insert-sqlite  the embedded create baseline: node:http, one prepared INSERT on a libsql connection to
//               the service's own SQLite file (BENCH_DATA_DIR), with the engine's pragmas (WAL, synchronous
//               NORMAL, busy timeout)
// Without DATABASE_URL the service runs on the embedded engine in BENCH_DATA_DIR (bench-embedded.ts).
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import mysql from 'mysql2/promise';
import type { Ctx } from '../../common/context';
import { configFrom } from '../../config/config';
import { BUSY_TIMEOUT_MS } from '../../db/sqlite-engine';
import { createService } from '../../service';

const mode = process.argv[2];
const url = process.env.DATABASE_URL as string;

function ready(server: http.Server, extra: Record<string, unknown> = {}): void {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, ...extra })}\n`);
}

async function rawInsert(): Promise<void> {
  const pool = mysql.createPool({ uri: url, connectionLimit: 20, timezone: 'Z' });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { workflow_id: string };
      const id = `sess_${randomBytes(12).toString('hex')}`;
      const now = new Date();
      const expires = new Date(now.getTime() + 3600_000);
      pool
        .execute(
          'INSERT INTO session (id, business_id, environment, workflow_id, workflow_revision, status, version, current_stage, metadata, expires_at, step_expires_at, binding_hash, created_at, updated_at, ended_at) VALUES (?, ?, ?, ?, 1, ?, 0, 0, NULL, ?, NULL, NULL, ?, ?, NULL)',
          [id, 'biz_raw', 'sandbox', body.workflow_id, 'created', expires, now, now],
        )
        .then(() => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id,
              workflow_id: body.workflow_id,
              status: 'created',
              expires: expires.toISOString(),
            }),
          );
        })
        .catch((e: unknown) => {
          res.writeHead(500);
          res.end(String(e));
        });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ready(server);
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    pool.end().finally(() => process.exit(0));
  });
}

async function rawSelect(): Promise<void> {
  const pool = mysql.createPool({ uri: url, connectionLimit: 20, timezone: 'Z' });
  const server = http.createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    pool
      // sql-lint-allow: session-scope: the raw primary-key SELECT baseline of the bench, by globally unique id
      .execute('SELECT * FROM session WHERE id = ?', [id])
      .then(([rows]) => {
        const r = (rows as Record<string, unknown>[])[0];
        if (!r) {
          res.writeHead(404);
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(r));
      })
      .catch((e: unknown) => {
        res.writeHead(500);
        res.end(String(e));
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ready(server);
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    pool.end().finally(() => process.exit(0));
  });
}

async function rawInsertSqlite(): Promise<void> {
  const db = new Database(path.join(process.env.BENCH_DATA_DIR as string, 'service.sqlite'), {
    timeout: BUSY_TIMEOUT_MS,
  });
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('synchronous = NORMAL');
  const insert = db.prepare(
    'INSERT INTO session (id, business_id, environment, workflow_id, workflow_revision, status, version, current_stage, metadata, expires_at, step_expires_at, binding_hash, created_at, updated_at, ended_at) VALUES (?, ?, ?, ?, 1, ?, 0, 0, NULL, ?, NULL, NULL, ?, ?, NULL)',
  );
  // TypeORM's SQLite datetime text, UTC
  const text = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { workflow_id: string };
        const id = `sess_${randomBytes(12).toString('hex')}`;
        const now = new Date();
        const expires = new Date(now.getTime() + 3600_000);
        insert.run(
          id,
          'biz_raw',
          'sandbox',
          body.workflow_id,
          'created',
          text(expires),
          text(now),
          text(now),
        );
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id,
            workflow_id: body.workflow_id,
            status: 'created',
            expires: expires.toISOString(),
          }),
        );
      } catch (e) {
        res.writeHead(500);
        res.end(String(e));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ready(server);
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    db.close();
    process.exit(0);
  });
}

async function service(): Promise<void> {
  // the embedded engine's bench passes its data directory (the raw baseline writes to the same file)
  const dataDir = process.env.BENCH_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const svc = await createService(
    configFrom({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ...(url ? { DATABASE_URL: url } : {}),
      LOG_LEVEL: 'error',
      RATE_LIMIT: '100000000/1',
    } as never),
    { workers: false },
  );
  const base = await svc.listen();
  if (process.env.BENCH_TRACE)
    await traceStatements(svc.ds.driver as unknown as Parameters<typeof traceStatements>[0]);
  const biz = await svc.tenancy.createBusiness('Bench GmbH');
  const key = await svc.tenancy.issueApiKey(biz.id, 'sandbox');
  const ctx: Ctx = {
    actor: { kind: 'api_key', apiKeyId: key.id, businessId: biz.id, environment: 'sandbox' },
    requestId: 'bench',
    clock: svc.clock,
  };
  const wf = await svc.workflows.create(ctx, {
    name: 'Bench',
    steps: [{ primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date'] }],
  });
  await svc.workflows.publish(ctx, wf.id);
  await svc.webhooks.configureEndpoint(ctx, `${base}/dev/webhook-receiver`);
  const sessionIds: string[] = [];
  const n = Number(process.env.BENCH_SESSIONS ?? 200);
  for (let i = 0; i < n; i++)
    sessionIds.push(
      (await svc.sessions.create(ctx, { workflow_id: wf.id, metadata: { order: i } })).session.id,
    );
  // one http.Server is inside svc; report its URL
  process.stdout.write(`${JSON.stringify({ url: base, apiKey: key.key, workflowId: wf.id, sessionIds })}\n`);
  process.on('SIGTERM', () => {
    svc.close().finally(() => {
      if (!process.env.BENCH_DATA_DIR) fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

interface TracedConnection {
  query(...args: unknown[]): unknown;
  execute(...args: unknown[]): unknown;
}

/**
 * BENCH_TRACE=1: prints, every 2 s, statements per second and their mean round-trip time, per statement kind,
 * for every statement any connection of the driver's pool sends (pool calls, transactions, prepared
 * statements): the mysql2 connection prototype is wrapped, in this bench process only.
 */
async function traceStatements(driver: {
  pool: { getConnection(cb: (e: Error | null, c: unknown) => void): void };
}): Promise<void> {
  const conn = await new Promise<{ release(): void }>((resolve, reject) =>
    driver.pool.getConnection((e, c) => (e ? reject(e) : resolve(c as { release(): void }))),
  );
  // PoolConnection -> Connection (BaseConnection): the prototype that owns query and execute
  let proto = Object.getPrototypeOf(conn) as TracedConnection;
  while (proto && !Object.hasOwn(proto, 'execute')) proto = Object.getPrototypeOf(proto) as TracedConnection;
  conn.release();
  const stats = new Map<string, { n: number; ms: number }>();
  for (const method of ['query', 'execute'] as const) {
    const orig = proto[method];
    proto[method] = function (this: unknown, ...args: unknown[]) {
      const first = args[0] as string | { sql: string };
      const text = typeof first === 'string' ? first : first.sql;
      const k = `${method === 'execute' ? 'X ' : 'Q '}${text.replace(/\s+/g, ' ').slice(0, 60)}`;
      const t0 = performance.now();
      const cbAt = args.findIndex((a) => typeof a === 'function');
      const note = () => {
        const st = stats.get(k) ?? { n: 0, ms: 0 };
        st.n++;
        st.ms += performance.now() - t0;
        stats.set(k, st);
      };
      if (cbAt >= 0) {
        const cb = args[cbAt] as (...r: unknown[]) => void;
        args[cbAt] = (...r: unknown[]) => {
          note();
          cb(...r);
        };
      }
      const cmd = orig.apply(this, args) as { once?: (ev: string, f: () => void) => void };
      if (cbAt < 0) cmd?.once?.('end', note);
      return cmd;
    };
  }
  setInterval(() => {
    let total = 0;
    for (const [k, v] of stats) {
      total += v.n;
      console.error(
        `trace ${(v.n / 2).toFixed(0).padStart(6)}/s mean ${(v.ms / v.n).toFixed(1).padStart(6)} ms  ${k}`,
      );
    }
    if (total) console.error(`trace total ${(total / 2).toFixed(0)} statements/s`);
    stats.clear();
  }, 2000).unref();
}

const modes: Record<string, () => Promise<void>> = {
  'raw-insert': rawInsert,
  'raw-select': rawSelect,
  'raw-insert-sqlite': rawInsertSqlite,
  service,
};
const run = mode ? modes[mode] : undefined;
if (!run) {
  console.error(`usage: target.ts ${Object.keys(modes).join('|')}`);
  process.exit(2);
}
run().catch((e) => {
  console.error(e);
  process.exit(1);
});
