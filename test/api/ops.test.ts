// Operations as an operator observes them: /healthz and /readyz, Prometheus metrics at /metrics (requests by
// route template and status with latency histograms, webhook deliveries and outbox backlog, verification
// outcomes, sweeper passes), the METRICS_TOKEN, and graceful shutdown of a real `main.ts` process on SIGTERM
// with a request in flight: the request completes, its row is committed, and the process exits 0.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../server/src/app/test-database';
import { ManualClock } from '../../server/src/common/clock';
import { configFrom } from '../../server/src/config/config';
import { createService, type Service } from '../../server/src/service';
import {
  Api,
  createBusiness,
  freePort,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { tsNode } from '../support/script-bundles';
import { shareWithReferenceWallet, startedSession } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';

const metricValue = (text: string, name: string, labels: Record<string, string> = {}): number => {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? want.every((w) => l.includes(w)) : false,
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : Number.NaN;
};

describe('health, readiness and metrics', () => {
  const clock = new ManualClock(Date.parse('2030-01-01T10:00:00.000Z'));
  let t: TestService;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    t = await startTestService({ clock, workers: false, label: 'ops' });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.stop();
  });

  it('answers liveness and readiness publicly, without tenant data', async () => {
    const live = await new Api(t.baseUrl).rest('GET', '/healthz');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await new Api(t.baseUrl).rest('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
  });

  it('reports readiness false (503 not_ready) when a migration is not applied', async () => {
    const last = (await t.svc.ds.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1')) as {
      name: string;
    }[];
    const name = last[0]?.name as string;
    await t.svc.ds.query('DELETE FROM migrations WHERE name = ?', [name]);
    try {
      const r = await new Api(t.baseUrl).rest('GET', '/readyz');
      expect(r.status).toBe(503);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body).toMatchObject({ code: 'not_ready', checks: { database: 'ok', migrations: 'pending' } });
    } finally {
      const ts = Number(/(\d{13})$/.exec(name)?.[1]);
      await t.svc.ds.query('INSERT INTO migrations (timestamp, name) VALUES (?, ?)', [ts, name]);
    }
    expect((await new Api(t.baseUrl).rest('GET', '/readyz')).status).toBe(200);
  });

  it('exposes requests, verifications, deliveries and the outbox backlog in Prometheus format', async () => {
    const biz = await createBusiness(t, 'Metrics AG');
    const api = new Api(t.baseUrl, biz.apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const { id, signer } = await startedSession(
      t.baseUrl,
      await api.rest('POST', '/v1/sessions', { workflow_id: workflowId }),
    );
    expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
    expect((await api.rest('GET', '/v1/sessions/sess_nope')).status).toBe(404);

    const before = await fetch(`${t.baseUrl}/metrics`);
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const m1 = await before.text();
    // the route label is the template: no session ids or capability URLs in metrics
    expect(m1).not.toContain(id);
    expect(
      metricValue(m1, 'http_requests_total', { method: 'POST', route: '/v1/sessions', status: '201' }),
    ).toBe(1);
    expect(
      metricValue(m1, 'http_requests_total', { method: 'GET', route: '/v1/sessions/:id', status: '404' }),
    ).toBe(1);
    expect(
      metricValue(m1, 'http_request_duration_seconds_count', { route: '/v1/sessions', status: '201' }),
    ).toBe(1);
    expect(m1).toMatch(
      /http_request_duration_seconds_bucket\{le="0.05",method="POST",route="\/v1\/sessions",status="201"\} \d+/,
    );
    expect(metricValue(m1, 'http_requests_total', { route: '/graphql', status: '200' })).toBeGreaterThan(0);
    expect(metricValue(m1, 'verification_outcomes_total', { outcome: 'verified' })).toBe(1);
    // session.started and step.completed etc. wait in the outbox (no relay running); due now, so lag 0 s
    const pending = metricValue(m1, 'webhook_outbox_pending');
    expect(pending).toBeGreaterThan(0);
    expect(metricValue(m1, 'webhook_outbox_lag_seconds')).toBe(0);

    // 90 s later with no relay, the oldest due event has waited 90 s; one relay pass delivers them all
    clock.advance(90_000);
    const m2 = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(metricValue(m2, 'webhook_outbox_lag_seconds')).toBe(90);
    while ((await t.svc.relay.runOnce()) > 0) {}
    const m3 = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(metricValue(m3, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(pending);
    expect(metricValue(m3, 'webhook_outbox_pending')).toBe(0);
    expect(metricValue(m3, 'webhook_outbox_lag_seconds')).toBe(0);

    // a sweeper pass after an untouched session's expiry (1 h by default) expires it and is counted
    expect((await api.rest('POST', '/v1/sessions', { workflow_id: workflowId })).status).toBe(201);
    clock.advance(3_600_001);
    expect(await t.svc.sweep()).toBe(1);
    const m4 = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(metricValue(m4, 'expiry_sweeper_passes_total', { outcome: 'ok' })).toBe(1);
    expect(metricValue(m4, 'expiry_sweeper_expired_sessions_total')).toBe(1);
  });
});

describe('metrics token', () => {
  const token = 'metrics-token-0123456789abcdef';
  let db: TestDatabase;
  let svc: Service;
  let baseUrl: string;
  beforeAll(async () => {
    db = await createTestDatabase('ops_token');
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    svc = await createService(
      configFrom({
        PORT: String(port),
        DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ops-')),
        DATABASE_URL: db.url,
        LOG_LEVEL: 'error',
        METRICS_TOKEN: token,
      } as never),
      { workers: false },
    );
    await svc.listen();
  });
  afterAll(async () => {
    await svc?.close();
    await db?.drop();
  });

  it('requires Authorization: Bearer <METRICS_TOKEN> when one is configured', async () => {
    for (const auth of [undefined, 'Bearer wrong', `Bearer ${token}x`, token]) {
      const r = await fetch(`${baseUrl}/metrics`, { headers: auth ? { Authorization: auth } : {} });
      expect(r.status).toBe(401);
      expect((await r.json()).code).toBe('unauthenticated');
    }
    const ok = await fetch(`${baseUrl}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('http_requests_total');
    // health endpoints stay public
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect(() => configFrom({ METRICS_TOKEN: 'short' } as never)).toThrow(/METRICS_TOKEN/);
  });
});

describe('graceful shutdown on SIGTERM (child process running main.ts)', () => {
  let db: TestDatabase;
  let dataDir: string;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    // migrated (a copy of the run's template): the child's start is not what this test is about, and a fresh
    // database's migrations are the slowest part of it on a loaded machine (the 'ops_token' service migrates one)
    db = await createTestDatabase('ops_shutdown', { migrated: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-shutdown-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await db?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the request in flight, refuses new connections, closes the pool and exits 0', async () => {
    const port = await freePort();
    const root = path.resolve(import.meta.dirname, '../..');
    const main = tsNode(path.join(root, 'server/src/main.ts'));
    child = spawn(main.file, main.args, {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: db.url,
        BASE_URL: `http://127.0.0.1:${port}`, // vitest puts BASE_URL=/ into its own environment
        LOG_LEVEL: 'info',
        APP_ENV: 'development',
        TSX_TSCONFIG_PATH: path.join(root, 'server/tsconfig.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const seen = (re: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            child?.stdout?.off('data', onData);
            resolve(m);
          }
        };
        const onData = () => check();
        child?.stdout?.on('data', onData);
        child?.once('exit', (code) => reject(new Error(`exited ${code} before ${re}: ${out}`)));
        check();
      });
    // everything the service prints, kept until it exits: each wait below reads it
    const keep = (c: Buffer) => {
      out += c.toString('utf8');
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    // Each wait names itself: a wait that outlasts its bound fails with its name and what the service printed
    // (the shutdown logs each of its stages), instead of the run's bare timeout.
    const within = <T>(what: string, p: Promise<T>, ms: number): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what}: nothing in ${ms} ms; the service printed:\n${out}`)),
          ms,
        );
      });
      return Promise.race([p, late]).finally(() => clearTimeout(timer));
    };
    const [, apiKey] = await within('the sandbox banner', seen(/API key \(sandbox\):\s+(\S+)/), 30_000);
    const [, workflowId] = await within('the workflow id', seen(/Workflow id:\s+(\S+)/), 10_000);
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));

    // A create whose body is still on its way: the server has the request (it answered 100 Continue).
    const body = JSON.stringify({ workflow_id: workflowId, metadata: { note: 'in flight at SIGTERM' } });
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/sessions',
      headers: {
        Authorization: `Bearer ${apiKey}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        Expect: '100-continue',
      },
    });
    const answer = new Promise<{ status: number; json: { id?: string; status?: string } }>(
      (resolve, reject) => {
        req.on('response', (res) => {
          let s = '';
          res.on('data', (c: Buffer) => {
            s += c.toString('utf8');
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(s) }));
        });
        req.on('error', reject);
      },
    );
    await within('100 Continue', new Promise<void>((resolve) => req.once('continue', resolve)), 5_000);
    req.write(body.slice(0, 10));

    child.kill('SIGTERM');
    await within('the shutdown log', seen(/shutting down/), 5_000);
    // no new connections once shutdown began
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow('fetch failed');

    req.end(body.slice(10));
    const res = await within('the answer in flight', answer, 10_000);
    expect(res.status).toBe(201);
    expect(res.json.id).toMatch(/^sess_/);
    expect(await within('the exit', exited, 15_000)).toBe(0);

    // the session was committed before the pool closed
    const mysql = await import('mysql2/promise');
    const conn = await mysql.createConnection(db.url);
    try {
      const [rows] = await conn.query('SELECT id FROM session WHERE id = ?', [res.json.id]);
      expect(rows).toHaveLength(1);
    } finally {
      await conn.end();
    }
  }, 90_000); // above the sum of its waits' bounds (75 s): a wait that outlasts its bound fails with its name
});
