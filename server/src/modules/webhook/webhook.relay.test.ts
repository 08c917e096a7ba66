// Integration tests of webhook endpoint configuration and the dev webhook receiver on real MariaDB, delivering
// over real HTTP to a local receiver; delivery, retries and ordering: webhook.relay-delivery.test.ts. Time moves
// only through the ManualClock (shared setup: webhook.relay.test-support.ts).
import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { DataSource } from 'typeorm';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../common/clock';
import { type AuthDecision, RouteRegistry, requestContext } from '../../common/http';
import { newId } from '../../common/ids';
import { type DevDelivery, registerDevReceiver } from './dev-receiver';
import { type Receiver, secrets, silent, webhookRelaySuite } from './webhook.relay.test-support';
import { WebhookService } from './webhook.service';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

const s = webhookRelaySuite('webhook');
const { ctxFor, relay, enqueue, eventsOf } = s;
let ds: DataSource;
let clock: ManualClock;
let receiver: Receiver;
beforeEach(() => {
  ({ ds, clock, receiver } = s);
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
      await enqueue('biz_prod', sess, 'session.completed', {}, 'production');
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
      await enqueue('biz_dev', sess, 'step.completed', { note: '<b>x</b>' }, 'sandbox');
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
