// The relay's lease-based claim (ADR 0014) on real MariaDB and on the embedded SQLite: a compare-and-set claim
// that no lock backs, a fencing token that stops a relay whose lease ran out, kept-alive connections, and the
// continuous background pipeline. Deliveries go over real HTTP to a local receiver; time moves only through the
// ManualClock.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock';
import { newId } from '../../common/ids';
import { createLogger } from '../../common/logger';
import { transactionWithRetry } from '../../db/data-source';
import { KeySealer } from '../kms/key-sealer';
import { enqueueEvent } from './outbox';
import { WebhookSecretBox } from './secret-box';
import { WebhookRelay } from './webhook.relay';
import { type OutboxEngine, outboxEngines } from './webhook.relay.test-support';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookEventEntity } from './webhook-event.entity';

/** A receiver that answers 200, or holds a request until released (to stretch a delivery past its lease). */
async function startReceiver() {
  const ids: string[] = [];
  const held: (() => void)[] = [];
  let hold = 0;
  let connections = 0;
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String(req.headers['x-service-delivery-id']));
      const answer = () => res.writeHead(200).end();
      if (hold > 0) {
        hold--;
        held.push(answer);
      } else answer();
      for (const w of waiters.splice(0)) w();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    ids,
    connections: () => connections,
    holdNext: (n = 1) => {
      hold += n;
    },
    releaseHeld: () => {
      for (const a of held.splice(0)) a();
    },
    until: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (ids.length >= n ? resolve() : waiters.push(check));
        check();
      }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const engines = outboxEngines('relay_lease');

const silent = createLogger((process.env.TEST_LOG as 'debug') ?? 'silent');
const T0 = new Date('2025-11-01T10:00:00.000Z');
// the secrets at rest are sealed under a master key (secret-box.ts); one per test process
const secrets = new WebhookSecretBox(new KeySealer(randomBytes(32)));

describe.each(engines)('webhook relay lease on %s', (name, open) => {
  let engine: OutboxEngine;
  let ds: DataSource;
  let clock: ManualClock;
  let receiver: Receiver;

  const relay = (opts: { concurrency?: number } = {}) =>
    new WebhookRelay({ ds, clock, logger: silent, allowPrivateTargets: true, secrets, ...opts });

  const enqueue = (sessionId: string, event: string) =>
    transactionWithRetry(ds, (m) =>
      enqueueEvent(m, {
        businessId: 'biz_lease',
        environment: 'sandbox',
        sessionId,
        event,
        data: { session_id: sessionId },
        now: clock.now(),
      }),
    );

  beforeAll(async () => {
    engine = await open();
    ds = engine.ds;
  });
  afterAll(async () => {
    await engine?.close();
  });
  beforeEach(async () => {
    clock = new ManualClock(T0);
    for (const t of ['webhook_attempt', 'webhook_event', 'webhook_endpoint'])
      await ds.query(`DELETE FROM ${t}`);
    receiver = await startReceiver();
    const id = newId('whep');
    await ds.getRepository(WebhookEndpointEntity).insert({
      id,
      businessId: 'biz_lease',
      environment: 'sandbox',
      url: receiver.url,
      secret: secrets.seal(id, 'whsec_lease'),
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });
    return () => receiver.close();
  });

  it('claims every due event exactly once across concurrent claimers (compare-and-set, no lock)', async () => {
    const sessions = Array.from({ length: 60 }, () => newId('sess'));
    for (const s of sessions) await enqueue(s, 'session.completed');
    const relays = Array.from({ length: 4 }, () => relay());
    const claims = await Promise.all(relays.flatMap((r) => [r.claim(25), r.claim(25)]));
    const ids = claims.flat().map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length); // nobody holds a row another claimer holds
    // Every claimed row carries the token of the claim that returned it.
    const rows = await ds.getRepository(WebhookEventEntity).find();
    const tokenOf = new Map(rows.map((r) => [r.id, r.claimToken]));
    for (const d of claims.flat()) expect(tokenOf.get(d.id)).toBe(d.claimToken);
    // What is left is claimed by the next round; nothing is claimed twice while the leases hold.
    const rest = await relay().claim(100);
    expect(new Set([...ids, ...rest.map((d) => d.id)]).size).toBe(60);
    expect(await relay().claim(100)).toEqual([]);
  });

  it('fences a relay whose lease ran out: the later claimer delivers, the late outcome is only an attempt', async () => {
    const sess = newId('sess');
    await enqueue(sess, 'session.completed');
    receiver.holdNext(1);
    const slow = relay();
    const slowRun = slow.runOnce();
    await receiver.until(1); // the slow relay's POST has arrived and hangs
    clock.advance(41_000); // past timeout (10 s) + lease margin (30 s)
    expect(await relay().runOnce()).toBe(1); // a second relay takes the delivery over and gets its 2xx
    receiver.releaseHeld();
    expect(await slowRun).toBe(1);

    const [ev] = await ds.getRepository(WebhookEventEntity).find({ where: { sessionId: sess } });
    expect(ev).toMatchObject({ status: 'delivered', attempts: 1, claimToken: null, leaseUntil: null });
    expect(await ds.getRepository(WebhookAttemptEntity).count({ where: { eventId: ev.id } })).toBe(2);
    expect(receiver.ids).toEqual([`${sess}:session.completed:0`, `${sess}:session.completed:0`]);
    expect(await relay().runOnce()).toBe(0);
  });

  it('keeps connections alive: 90 deliveries in three rounds open at most one round of connections', async () => {
    for (let i = 0; i < 90; i++) await enqueue(newId('sess'), 'session.completed');
    const r = relay({ concurrency: 30 });
    expect(await r.runOnce()).toBe(30);
    expect(await r.runOnce()).toBe(30);
    expect(await r.runOnce()).toBe(30);
    await r.stop();
    expect(receiver.ids).toHaveLength(90);
    expect(receiver.connections()).toBeLessThanOrEqual(30);
  });

  it('the background pipeline delivers a burst of many sessions, each strictly in order, none twice', async () => {
    const sessions = Array.from({ length: 40 }, () => newId('sess'));
    for (const s of sessions) {
      await enqueue(s, 'step.completed');
      await enqueue(s, 'step.completed');
      await enqueue(s, 'session.completed');
    }
    const r = relay({ concurrency: 16 });
    r.start(3_600_000); // a poll no test waits for: the pipeline and the wake-ups must carry it
    try {
      await receiver.until(120);
    } finally {
      await r.stop();
    }
    expect(receiver.ids).toHaveLength(120);
    expect(new Set(receiver.ids).size).toBe(120);
    for (const s of sessions) {
      expect(receiver.ids.filter((id) => id.startsWith(`${s}:`))).toEqual([
        `${s}:step.completed:0`,
        `${s}:step.completed:1`,
        `${s}:session.completed:0`,
      ]);
    }
    expect(await ds.getRepository(WebhookEventEntity).count({ where: { status: 'delivered' } })).toBe(120);
    expect(await ds.getRepository(WebhookAttemptEntity).count()).toBe(120);
  });

  it('delivers a successor queued while its head is in flight right after the head, not at the next poll', async () => {
    const sess = newId('sess');
    await enqueue(sess, 'step.completed');
    receiver.holdNext(1);
    const r = relay();
    r.start(3_600_000); // a poll no test waits for: the head's outcome must wake its successor
    try {
      await receiver.until(1); // the head is at the receiver, unanswered
      await enqueue(sess, 'session.completed');
      const claims = r.stats.claims;
      r.kick();
      // the kick's claim finds the successor behind its head and parks it
      while (r.stats.claims === claims) await new Promise((res) => setTimeout(res, 5));
      const [next] = await ds.getRepository(WebhookEventEntity).find({ where: { sequence: 1 } });
      expect(next?.nextAttemptAt.getTime()).toBeGreaterThan(clock.now().getTime());
      receiver.releaseHeld();
      await receiver.until(2);
    } finally {
      await r.stop();
    }
    expect(receiver.ids).toEqual([`${sess}:step.completed:0`, `${sess}:session.completed:0`]);
  });

  // The relay's own pool reads the next claim's candidates in the round trip of each compare-and-set.
  it.runIf(name.includes('multi-statement'))(
    'claims an event queued while the previous claim was under way (its candidates are not kept)',
    async () => {
      const first = newId('sess');
      await enqueue(first, 'session.completed');
      // Hold the compare-and-set's answer once the database has run it (its candidate read included).
      const pool = (ds.driver as unknown as { pool: GatedPool }).pool;
      const getConnection = pool.getConnection;
      let answered!: () => void;
      const ran = new Promise<void>((res) => (answered = res));
      let release!: () => void;
      const held = new Promise<void>((res) => (release = res));
      pool.getConnection = function (this: GatedPool, cb) {
        getConnection.call(this, (err, conn) => {
          if (err) return cb(err, conn);
          const query = conn.query;
          conn.query = function (this: GatedConn, sql, values, qcb) {
            conn.query = query;
            const text = typeof sql === 'string' ? sql : sql.sql;
            if (!text.startsWith('UPDATE webhook_event SET claim_token'))
              return query.call(this, sql, values, qcb);
            return query.call(this, sql, values, (e: unknown, res: unknown) => {
              answered();
              void held.then(() => qcb(e, res));
            });
          };
          cb(err, conn);
        });
      };
      const r = relay();
      try {
        const claiming = r.claim(10);
        await ran;
        pool.getConnection = getConnection;
        const second = newId('sess');
        await enqueue(second, 'session.completed'); // committed after the candidates were read
        r.kick();
        release();
        expect((await claiming).map((d) => d.sessionId)).toEqual([first]);
        expect((await r.claim(10)).map((d) => d.sessionId)).toEqual([second]);
      } finally {
        pool.getConnection = getConnection;
        await r.stop();
      }
    },
  );
});

type QueryCb = (err: unknown, res: unknown) => void;
interface GatedConn {
  query(sql: string | { sql: string }, values: unknown, cb: QueryCb): unknown;
}
interface GatedPool {
  getConnection(cb: (err: unknown, conn: GatedConn) => void): void;
}
