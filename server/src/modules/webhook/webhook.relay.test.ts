// Integration tests of the webhook outbox and relay on real MariaDB, delivering over real HTTP to a local
// receiver. Time moves only through the ManualClock.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock';
import type { Ctx } from '../../common/context';
import { type AuthDecision, RouteRegistry, requestContext } from '../../common/http';
import { newId } from '../../common/ids';
import { createLogger } from '../../common/logger';
import type { Environment } from '../../config/config';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../db/test-database';
import { KeySealer } from '../verification/response-encryption';
import { type DevDelivery, registerDevReceiver } from './dev-receiver';
import { enqueueEvent } from './outbox';
import { WebhookSecretBox } from './secret-box';
import { verifyWebhookSignature } from './signature';
import { WebhookRelay } from './webhook.relay';
import { WebhookService } from './webhook.service';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookEventEntity } from './webhook-event.entity';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1 that records requests and answers with the next queued status. */
async function startReceiver() {
  const requests: Received[] = [];
  const replies: { status: number; headers?: Record<string, string> }[] = [];
  const waiters: (() => void)[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies.shift() ?? { status: 200 };
      res.writeHead(reply.status, reply.headers).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    requests,
    replies,
    connections: () => connections,
    /** Resolves once `n` requests have arrived (event-driven, no sleeping). */
    until: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (requests.length >= n ? resolve() : waiters.push(check));
        check();
      }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const silent = createLogger('silent');
const T0 = new Date('2025-11-01T10:00:00.000Z');

let db: MigratedTestDatabase;
let ds: DataSource;
let clock: ManualClock;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const ctxFor = (businessId: string, environment: Environment = 'sandbox'): Ctx => ({
  actor: { kind: 'api_key', apiKeyId: 'key_test', businessId, environment },
  requestId: 'req_test',
  clock,
});

// the secrets at rest are sealed under a master key (secret-box.ts); one per test process
const secrets = new WebhookSecretBox(new KeySealer(randomBytes(32)));

const relay = (allowPrivateTargets = true) =>
  new WebhookRelay({ ds, clock, logger: silent, allowPrivateTargets, secrets });

const enqueue = (businessId: string, sessionId: string, event: string, data: Record<string, unknown> = {}) =>
  ds.transaction((m) =>
    enqueueEvent(m, {
      businessId,
      environment: 'sandbox',
      sessionId,
      event,
      data: { session_id: sessionId, ...data },
      now: clock.now(),
    }),
  );

const eventsOf = (sessionId: string) =>
  ds.getRepository(WebhookEventEntity).find({ where: { sessionId }, order: { sequence: 'ASC' } });

beforeAll(async () => {
  db = await migratedTestDatabase('webhook');
  ds = db.ds;
});

afterAll(async () => {
  await db?.close();
});

beforeEach(async () => {
  clock = new ManualClock(T0);
  receiver = await startReceiver();
  // The relay claims every due event of the database: start each test from an empty outbox.
  for (const t of ['webhook_attempt', 'webhook_event', 'webhook_endpoint'])
    await ds.query(`DELETE FROM ${t}`);
});

afterEach(async () => {
  await receiver.close();
});

describe('webhook endpoint configuration', () => {
  it('returns the secret once, replaces the endpoint of the environment, and never reads the secret back', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    const ctx = ctxFor('biz_cfg');
    expect(await svc.getEndpoint(ctx)).toBeNull();
    expect(await svc.hasEndpoint(ds.manager, 'biz_cfg', 'sandbox')).toBe(false);

    const first = await svc.configureEndpoint(ctx, receiver.url);
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const second = await svc.configureEndpoint(ctx, `${receiver.url}/v2`);
    expect(second.id).toBe(first.id);
    expect(second.secret).not.toBe(first.secret);

    const read = await svc.getEndpoint(ctx);
    expect(read).toEqual({
      id: first.id,
      url: `${receiver.url}/v2`,
      createdAt: first.createdAt,
      previousSecretExpiresAt: null, // a new URL ends the old secret at once
    });
    expect(JSON.stringify(read)).not.toContain('whsec_');
    expect(await svc.hasEndpoint(ds.manager, 'biz_cfg', 'sandbox')).toBe(true);
    expect(await svc.hasEndpoint(ds.manager, 'biz_cfg', 'production')).toBe(false);
    expect(await svc.getEndpoint(ctxFor('biz_other'))).toBeNull();
  });

  it('refuses a production endpoint on 127.0.0.1 even when private targets are allowed, and never delivers to it', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    const prodUrl = receiver.url.replace('http:', 'https:');
    await expect(svc.configureEndpoint(ctxFor('biz_prod', 'production'), prodUrl)).rejects.toMatchObject({
      code: 'webhook_url_invalid',
      param: 'url',
    });
    await expect(svc.configureEndpoint(ctxFor('biz_prod', 'production'), receiver.url)).rejects.toMatchObject(
      {
        code: 'webhook_url_invalid',
      },
    );
    expect(await svc.getEndpoint(ctxFor('biz_prod', 'production'))).toBeNull();

    // A row that points there anyway (e.g. the name resolved publicly when configured) is checked again at delivery.
    for (const url of [prodUrl, receiver.url]) {
      await ds.getRepository(WebhookEndpointEntity).delete({ businessId: 'biz_prod' });
      const id = newId('whep');
      await ds.getRepository(WebhookEndpointEntity).insert({
        id,
        businessId: 'biz_prod',
        environment: 'production',
        url,
        secret: secrets.seal(id, 'whsec_x'),
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      const sess = newId('sess');
      await ds.transaction((m) =>
        enqueueEvent(m, {
          businessId: 'biz_prod',
          environment: 'production',
          sessionId: sess,
          event: 'session.completed',
          data: {},
          now: clock.now(),
        }),
      );
      expect(await relay(true).runOnce()).toBe(1);
      const [ev] = await eventsOf(sess);
      expect(ev).toMatchObject({ status: 'pending', attempts: 1 });
      expect(ev.lastError).toContain('webhook_url_invalid');
      const attempts = await ds.getRepository(WebhookAttemptEntity).find({ where: { eventId: ev.id } });
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ statusCode: null });
    }
    expect(receiver.connections()).toBe(0);
  });
});

describe('webhook relay', () => {
  it('delivers the stored body with the four service headers and a signature that verifies', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    const { secret } = await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const sess = newId('sess');
    const { deliveryId } = await enqueue('biz_a', sess, 'step.completed', {
      stage: 0,
      primitive: 'identify',
    });
    expect(deliveryId).toBe(`${sess}:step.completed:0`);

    expect(await relay().runOnce()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const [{ headers, body }] = receiver.requests;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toMatch(/Webhooks/);
    expect(headers['x-service-event']).toBe('step.completed');
    expect(headers['x-service-delivery-id']).toBe(deliveryId);
    expect(headers['x-service-timestamp']).toBe(String(T0.getTime() / 1000));
    expect(JSON.parse(body)).toEqual({
      event: 'step.completed',
      delivery_id: deliveryId,
      data: { session_id: sess, stage: 0, primitive: 'identify' },
    });
    expect(
      verifyWebhookSignature({
        secret,
        signatureHeader: headers['x-service-signature'] as string,
        timestamp: headers['x-service-timestamp'] as string,
        body,
        now: clock.now(),
      }),
    ).toBe(true);

    const [ev] = await eventsOf(sess);
    expect(ev).toMatchObject({ status: 'delivered', attempts: 1, body });
    const attempts = await ds.getRepository(WebhookAttemptEntity).find({ where: { eventId: ev.id } });
    expect(attempts).toMatchObject([{ statusCode: 200, error: null, businessId: 'biz_a' }]);
    expect(await relay().runOnce()).toBe(0); // delivered once only
  });

  it('retries after a 500 with the same delivery id once the backoff (5 s +-10%) has passed', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    const { secret } = await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const sess = newId('sess');
    await enqueue('biz_a', sess, 'session.completed');
    receiver.replies.push({ status: 500 });

    const r = relay();
    expect(await r.runOnce()).toBe(1);
    expect(await r.runOnce()).toBe(0);
    clock.advance(4_000);
    expect(await r.runOnce()).toBe(0);
    clock.advance(2_000);
    expect(await r.runOnce()).toBe(1);

    expect(receiver.requests).toHaveLength(2);
    const ids = receiver.requests.map((q) => q.headers['x-service-delivery-id']);
    expect(ids).toEqual([`${sess}:session.completed:0`, `${sess}:session.completed:0`]);
    expect(receiver.requests[0].body).toBe(receiver.requests[1].body);
    // the retry is signed for its own timestamp
    const retry = receiver.requests[1];
    expect(retry.headers['x-service-timestamp']).toBe(String(T0.getTime() / 1000 + 6));
    expect(
      verifyWebhookSignature({
        secret,
        signatureHeader: retry.headers['x-service-signature'] as string,
        timestamp: retry.headers['x-service-timestamp'] as string,
        body: retry.body,
        now: clock.now(),
      }),
    ).toBe(true);
    const [ev] = await eventsOf(sess);
    expect(ev).toMatchObject({ status: 'delivered', attempts: 2 });
    const attempts = await ds
      .getRepository(WebhookAttemptEntity)
      .find({ where: { eventId: ev.id }, order: { attemptedAt: 'ASC' } });
    expect(attempts.map((a) => [a.statusCode, a.error])).toEqual([
      [500, 'HTTP 500'],
      [200, null],
    ]);
  });

  it('honours a longer Retry-After and marks the delivery failed after the schedule is exhausted', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const sess = newId('sess');
    await enqueue('biz_a', sess, 'session.expired');
    receiver.replies.push({ status: 503, headers: { 'Retry-After': '120' } });
    const r = relay();
    expect(await r.runOnce()).toBe(1);
    clock.advance(60_000);
    expect(await r.runOnce()).toBe(0);
    clock.advance(61_000);
    for (let i = 0; i < 8; i++) receiver.replies.push({ status: 500 });
    expect(await r.runOnce()).toBe(1);

    // the remaining six waits (5 min ... 10 h) each end in another 500, then the delivery is failed
    for (let i = 0; i < 6; i++) {
      clock.advance(11 * 3600 * 1000);
      expect(await r.runOnce()).toBe(1);
    }
    const [ev] = await eventsOf(sess);
    expect(ev).toMatchObject({ status: 'failed', attempts: 8, lastError: 'HTTP 500' });
    clock.advance(24 * 3600 * 1000);
    expect(await r.runOnce()).toBe(0);
    expect(receiver.requests).toHaveLength(8);

    // redelivery from the dashboard puts it back in the queue
    receiver.replies.length = 0;
    await svc.redeliver(ctxFor('biz_a'), ev.id);
    await expect(svc.redeliver(ctxFor('biz_other'), ev.id)).rejects.toMatchObject({ code: 'not_found' });
    expect(await r.runOnce()).toBe(1);
    expect((await eventsOf(sess))[0]).toMatchObject({ status: 'delivered' });
  });

  it('delivers the events of a session strictly in order: the next waits for the previous 2xx', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const sess = newId('sess');
    const other = newId('sess');
    await enqueue('biz_a', sess, 'step.completed', { stage: 0 });
    await enqueue('biz_a', sess, 'step.completed', { stage: 1 });
    await enqueue('biz_a', sess, 'session.completed');
    receiver.replies.push({ status: 500 });
    const r = relay();

    expect(await r.runOnce()).toBe(1); // only the first of the session, which fails
    expect(receiver.requests.map((q) => q.headers['x-service-delivery-id'])).toEqual([
      `${sess}:step.completed:0`,
    ]);
    // another session is not held up by it
    await enqueue('biz_a', other, 'session.expired');
    expect(await r.runOnce()).toBe(1);
    expect(receiver.requests[1].headers['x-service-delivery-id']).toBe(`${other}:session.expired:0`);
    expect(await r.runOnce()).toBe(0);

    clock.advance(6_000);
    while ((await r.runOnce()) > 0) {
      // each run delivers at most the head of the session
    }
    const ids = receiver.requests
      .map((q) => q.headers['x-service-delivery-id'])
      .filter((id) => String(id).startsWith(sess));
    expect(ids).toEqual([
      `${sess}:step.completed:0`,
      `${sess}:step.completed:0`,
      `${sess}:step.completed:1`,
      `${sess}:session.completed:0`,
    ]);
    expect((await eventsOf(sess)).map((e) => e.status)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('a long queue of one session does not hold up the events of other sessions', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const busy = newId('sess');
    for (let i = 0; i < 30; i++) await enqueue('biz_a', busy, 'step.completed', { stage: i });
    clock.advance(1); // the other session's event is the newest due row
    const other = newId('sess');
    await enqueue('biz_a', other, 'session.completed');
    const r = relay();
    await r.runOnce();
    await r.runOnce();
    const ids = receiver.requests.map((q) => String(q.headers['x-service-delivery-id']));
    expect(ids).toContain(`${other}:session.completed:0`);
    expect(ids.filter((id) => id.startsWith(busy))).toEqual([
      `${busy}:step.completed:0`,
      `${busy}:step.completed:1`,
    ]);
  });

  it('numbers events per (session, event) from 0 and orders them per session', async () => {
    const sess = newId('sess');
    const a = await enqueue('biz_a', sess, 'step.completed', { stage: 0 });
    const b = await enqueue('biz_a', sess, 'step.completed', { stage: 1 });
    const c = await enqueue('biz_a', sess, 'session.completed');
    const d = await enqueue('biz_a', newId('sess'), 'step.completed', { stage: 0 });
    expect([a, b, c].map((x) => x.deliveryId)).toEqual([
      `${sess}:step.completed:0`,
      `${sess}:step.completed:1`,
      `${sess}:session.completed:0`,
    ]);
    expect(d.deliveryId).toMatch(/:step\.completed:0$/);
    const rows = await eventsOf(sess);
    expect(rows.map((e) => [e.sequence, e.event, e.counter])).toEqual([
      [0, 'step.completed', 0],
      [1, 'step.completed', 1],
      [2, 'session.completed', 0],
    ]);
    expect(JSON.parse(rows[1].body)).toEqual({
      event: 'step.completed',
      delivery_id: `${sess}:step.completed:1`,
      data: { session_id: sess, stage: 1 },
    });
  });

  it('two relays running concurrently deliver every event exactly once and in order (lease claim)', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const sessions = Array.from({ length: 12 }, () => newId('sess'));
    for (const s of sessions) {
      await enqueue('biz_a', s, 'step.completed', { stage: 0 });
      await enqueue('biz_a', s, 'step.completed', { stage: 1 });
      await enqueue('biz_a', s, 'session.completed');
    }
    const r1 = relay();
    const r2 = relay();
    let rounds = 0;
    for (;;) {
      const [a, b] = await Promise.all([r1.runOnce(), r2.runOnce()]);
      if (a + b === 0) break;
      expect(++rounds).toBeLessThan(50);
    }
    const ids = receiver.requests.map((q) => String(q.headers['x-service-delivery-id']));
    expect(ids).toHaveLength(36);
    expect(new Set(ids).size).toBe(36);
    for (const s of sessions) {
      expect(ids.filter((id) => id.startsWith(`${s}:`))).toEqual([
        `${s}:step.completed:0`,
        `${s}:step.completed:1`,
        `${s}:session.completed:0`,
      ]);
    }
    expect(await ds.getRepository(WebhookAttemptEntity).count()).toBe(36);
    expect(await ds.getRepository(WebhookEventEntity).count({ where: { status: 'delivered' } })).toBe(36);
  });

  it('runs in the background: kick() delivers a newly queued event without waiting for the poll', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const r = relay();
    r.start(3_600_000); // a poll interval no test would wait for
    try {
      await receiver.until(0);
      await enqueue('biz_a', newId('sess'), 'session.completed');
      r.kick();
      await receiver.until(1);
    } finally {
      await r.stop();
    }
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('dev webhook receiver', () => {
  it('verifies deliveries against the endpoint secret and lists them newest first', async () => {
    const registry = new RouteRegistry();
    registerDevReceiver(registry, { ds, logger: silent, clock, secrets });
    const app = express();
    app.use(requestContext(clock));
    app.use('/dev/webhook-receiver', express.raw({ type: '*/*', limit: '1mb' }));
    const router = express.Router();
    const pass: express.RequestHandler = (_req, _res, next) => next();
    registry.mount(router, {
      api_key: pass,
      public: pass,
      signer: pass,
      sandbox: pass,
      dashboard: pass,
    } satisfies Record<AuthDecision, express.RequestHandler>);
    app.use(router);
    const server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
      await svc.configureEndpoint(ctxFor('biz_dev'), `${base}/dev/webhook-receiver`);
      const sess = newId('sess');
      await ds.transaction((m) =>
        enqueueEvent(m, {
          businessId: 'biz_dev',
          environment: 'sandbox',
          sessionId: sess,
          event: 'step.completed',
          data: { note: '<b>x</b>' },
          now: clock.now(),
        }),
      );
      expect(await relay().runOnce()).toBe(1);
      expect((await eventsOf(sess))[0].status).toBe('delivered');

      // a forged delivery is recorded as invalid
      const forged = await fetch(`${base}/dev/webhook-receiver`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Service-Event': 'session.completed',
          'X-Service-Timestamp': String(Math.floor(clock.now().getTime() / 1000)),
          'X-Service-Signature': 'v1=00',
          'X-Service-Delivery-Id': 'forged',
        },
        body: '{"event":"session.completed"}',
      });
      expect(forged.status).toBe(204);

      const list = (await (await fetch(`${base}/dev/webhook-receiver?format=json`)).json()) as {
        deliveries: DevDelivery[];
      };
      expect(list.deliveries.map((d) => [d.deliveryId, d.signatureValid])).toEqual([
        ['forged', false],
        [`${sess}:step.completed:0`, true],
      ]);
      expect(list.deliveries[1].body).toMatchObject({ data: { note: '<b>x</b>' } });

      const page = await fetch(`${base}/dev/webhook-receiver`);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      const html = await page.text();
      expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
      expect(html).not.toContain('<b>x</b>');
      expect(html.indexOf('forged')).toBeLessThan(html.indexOf(`${sess}:step.completed:0`));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
