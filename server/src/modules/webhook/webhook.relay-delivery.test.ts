// Integration tests of the webhook outbox and relay on real MariaDB, delivering over real HTTP to a local
// receiver: headers and signature, retries and backoff, per-session order, concurrent relays. Time moves only
// through the ManualClock (shared setup: webhook.relay.test-support.ts).
import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../common/clock';
import { newId } from '../../common/ids';
import { countStatements } from '../../tools/bench/statements';
import { verifyWebhookSignature } from './signature';
import { SESSION_CANDIDATES_SQL } from './webhook.outbox-sql';
import { type Receiver, secrets, T0, webhookRelaySuite } from './webhook.relay.test-support';
import { WebhookService } from './webhook.service';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookEventEntity } from './webhook-event.entity';

const s = webhookRelaySuite('webhook_dlv');
const { ctxFor, relay, enqueue, eventsOf } = s;
let ds: DataSource;
let clock: ManualClock;
let receiver: Receiver;
beforeEach(() => {
  ({ ds, clock, receiver } = s);
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

  it('takes the candidates a transition offered without a read of its own, then what else is due (ADR 0058 amendment 3)', async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const other = newId('sess');
    await enqueue('biz_a', other, 'session.completed'); // due first
    clock.advance(1_000);
    const sess = newId('sess');
    await enqueue('biz_a', sess, 'step.completed', { stage: 0, primitive: 'identify' });
    await enqueue('biz_a', sess, 'session.completed');
    // what a transition reads in its commit's round trip and hands to its node's relay
    const offered = await ds.query(SESSION_CANDIDATES_SQL, [clock.now(), sess]);
    expect(offered).toHaveLength(2);
    const r = relay();
    r.kick(offered);
    const counter = await countStatements(ds);
    try {
      // the offered session's chain only, claimed without reading the candidates
      expect(await r.runOnce()).toBe(1);
      if (counter.count() !== undefined)
        expect([...counter.byText().keys()].filter((k) => k.startsWith('SELECT e.id'))).toEqual([]);
      // the event that was due before it is not forgotten: the next run reads and sends it
      expect(await r.runOnce()).toBe(1);
    } finally {
      counter.close();
    }
    const sent = receiver.requests.map(
      (q) => JSON.parse(q.body) as { event: string; data: { session_id: string } },
    );
    expect(sent.map((b) => `${b.data.session_id === sess ? 'offered' : 'other'}:${b.event}`)).toEqual([
      'offered:step.completed',
      'offered:session.completed',
      'other:session.completed',
    ]);
    expect(await r.runOnce()).toBe(0);
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

  it("sends a session's next events in the same run, each after the previous 2xx, and leaves nothing claimed", async () => {
    const svc = new WebhookService({ ds, allowPrivateTargets: true, secrets });
    await svc.configureEndpoint(ctxFor('biz_a'), receiver.url);
    const sess = newId('sess');
    await enqueue('biz_a', sess, 'step.completed', { stage: 0 });
    await enqueue('biz_a', sess, 'session.completed');
    const r = relay();
    expect(await r.runOnce()).toBe(1); // one claim: the head, its successor claimed with it
    expect(receiver.requests.map((q) => q.headers['x-service-delivery-id'])).toEqual([
      `${sess}:step.completed:0`,
      `${sess}:session.completed:0`,
    ]);
    expect(await r.runOnce()).toBe(0);
    expect(await eventsOf(sess)).toMatchObject([
      { status: 'delivered', attempts: 1, claimToken: null, leaseUntil: null },
      { status: 'delivered', attempts: 1, claimToken: null, leaseUntil: null },
    ]);
    // the head refused: its successor is not sent, and is given back at once (due, not claimed)
    const next = newId('sess');
    await enqueue('biz_a', next, 'step.completed', { stage: 0 });
    await enqueue('biz_a', next, 'session.completed');
    receiver.replies.push({ status: 500 });
    expect(await r.runOnce()).toBe(1);
    expect(receiver.requests).toHaveLength(3);
    const [, second] = await eventsOf(next);
    expect(second).toMatchObject({ status: 'pending', attempts: 0, claimToken: null, leaseUntil: null });
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
    // a run sends a session's head and at most three successors claimed with it, in order (ADR 0045): the
    // busy session's first run sends 0-3, its second the next one its delivered predecessor woke
    expect(ids.filter((id) => id.startsWith(busy))).toEqual(
      [0, 1, 2, 3, 4].map((i) => `${busy}:step.completed:${i}`),
    );
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
