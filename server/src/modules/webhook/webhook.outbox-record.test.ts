// The outbox store's outcome write (record) on real MariaDB, on the relay's own multi-statement pool and on the
// embedded SQLite: on the relay's pool its statements go in one round trip with no transaction around them, so
// a re-run after a deadlock must find what its failed try wrote and change nothing twice; and a delivered
// terminal event (session.completed, …) is its session's last, so it wakes no successor.
import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../common/clock';
import { newId } from '../../common/ids';
import { createLogger, type Logger } from '../../common/logger';
import { transactionWithRetry } from '../../db/data-source';
import { countStatements } from '../../tools/bench/statements';
import { enqueueEvent } from './outbox';
import {
  type Attempted,
  type ClaimedDelivery,
  LEASE_MARGIN_MS,
  WebhookOutboxStore,
} from './webhook.outbox-store';
import { type OutboxEngine, outboxEngines } from './webhook.relay.test-support';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookEventEntity } from './webhook-event.entity';

const SET_LEVEL = 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED';

const engines = outboxEngines('outbox_record');

const T0 = new Date('2025-11-01T10:00:00.000Z');
const WAKE = 'UPDATE webhook_event SET next_attempt_at';

type QueryCb = (err: unknown, res: unknown) => void;
interface Conn {
  query(sql: string, values: unknown[], cb: QueryCb): unknown;
}
interface Pool {
  getConnection(cb: (err: unknown, conn: Conn) => void): void;
}

describe.each(engines)('webhook outcome write on %s', (name, open) => {
  let engine: OutboxEngine;
  let ds: DataSource;
  let clock: ManualClock;
  let logger: Logger & { warn: ReturnType<typeof vi.fn> };
  let store: WebhookOutboxStore;

  const enqueue = (sessionId: string, event: string, now = clock.now()) =>
    transactionWithRetry(ds, (m) =>
      enqueueEvent(m, {
        businessId: 'biz_rec',
        environment: 'sandbox',
        sessionId,
        event,
        data: { session_id: sessionId },
        now,
      }),
    );
  const attempt = (d: ClaimedDelivery, status: number): Attempted => ({
    d,
    attemptedAt: clock.now(),
    durationMs: 3,
    outcome: {
      statusCode: status,
      error: status < 300 ? null : `HTTP ${status}`,
      retryAfterMs: null,
      url: 'http://127.0.0.1:9/hook',
      excerpt: null,
    },
  });
  const event = async (sessionId: string, sequence: number) =>
    ds.getRepository(WebhookEventEntity).findOneByOrFail({ sessionId, sequence, businessId: 'biz_rec' });

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
    logger = Object.assign(createLogger('silent'), { warn: vi.fn() });
    store = new WebhookOutboxStore({ ds, clock, logger, timeoutMs: 10_000 });
  });

  it('a delivered terminal event is its session’s last: its outcome wakes nothing', async () => {
    const sess = newId('sess');
    await enqueue(sess, 'step.completed');
    await enqueue(sess, 'session.completed');
    // a row no session ever has (nothing is queued after a terminal event), parked: a wake-up would move it
    const parkedUntil = new Date(T0.getTime() + 3_600_000);
    await enqueue(sess, 'step.completed', parkedUntil);
    const [head] = await store.claim(10);
    expect(head?.event).toBe('step.completed');
    expect(head?.successors?.map((d) => d.event)).toEqual(['session.completed']);
    const last = head?.successors?.[0] as ClaimedDelivery;
    const counter = await countStatements(ds);
    let madeDue: boolean;
    try {
      ({ madeDue } = await store.record([attempt(head as ClaimedDelivery, 200), attempt(last, 200)]));
      if (name.includes('multi-statement')) {
        // one round trip: the attempt rows and the delivered update, committing alone (no START / COMMIT)
        // (a connection's first outcome write sets its session to READ COMMITTED first: one statement more)
        const first = [...counter.byText().keys()][0]?.startsWith(SET_LEVEL) ? 1 : 0;
        expect([counter.count(), (counter.statements() as number) - first]).toEqual([1, 2]);
        expect([...counter.byText().keys()].every((k) => !k.includes('START TRANSACTION'))).toBe(true);
      }
      expect([...counter.byText().keys()].filter((k) => k.startsWith(WAKE))).toEqual([]);
    } finally {
      counter.close();
    }
    expect(madeDue).toBe(false);
    expect((await event(sess, 0)).status).toBe('delivered');
    expect((await event(sess, 1)).status).toBe('delivered');
    expect((await event(sess, 2)).nextAttemptAt.getTime()).toBe(parkedUntil.getTime());
  });

  // Only the relay's own pool sends the outcome without a transaction, so only there can a try half-apply.
  it.runIf(name.includes('multi-statement'))(
    're-runs a half-applied outcome after a deadlock: one attempt row each, nothing counted twice, no lease lost',
    async () => {
      const a = newId('sess');
      const b = newId('sess');
      await enqueue(a, 'step.completed');
      await enqueue(b, 'step.completed');
      const claimed = await store.claim(10);
      expect(claimed).toHaveLength(2);
      // a's next event, queued while its head is out: parked behind it by the next claim, woken by the outcome
      await enqueue(a, 'step.completed');
      store.invalidatePrefetch();
      expect(await store.claim(10)).toEqual([]);
      expect((await event(a, 1)).nextAttemptAt.getTime()).toBeGreaterThan(T0.getTime());

      // The first outcome text runs for real up to its last statement (the wake-up), then answers a deadlock.
      const { sent, restore } = failFirstOutcome(ds, -1, deadlockError());
      const [headA, headB] = [a, b].map((s) => claimed.find((d) => d.sessionId === s) as ClaimedDelivery);
      let out: Awaited<ReturnType<WebhookOutboxStore['record']>>;
      try {
        out = await store.record([
          attempt(headA as ClaimedDelivery, 200),
          attempt(headB as ClaimedDelivery, 500),
        ]);
      } finally {
        restore();
      }
      // the same text twice: the attempt insert, a's delivery, b's retry, the wake-up; no START / COMMIT
      expect(sent).toHaveLength(2);
      expect(sent[1]).toBe(sent[0]);
      expect(sent[0]?.split(';\n').map((st) => st.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
        'INSERT INTO webhook_attempt',
        'UPDATE webhook_event SET',
        'UPDATE webhook_event SET',
        'UPDATE webhook_event SET',
      ]);
      expect(sent[0]).toContain('ON DUPLICATE KEY UPDATE id = id');
      expect(out.results.map((r) => r.result).sort()).toEqual(['delivered', 'retry']);
      expect(out.madeDue).toBe(true);
      expect(logger.warn).not.toHaveBeenCalled(); // the re-run's fenced updates matching nothing lost no lease

      const attempts = await ds
        .getRepository(WebhookAttemptEntity)
        .find({ where: { businessId: 'biz_rec' } });
      expect(attempts.map((r) => r.eventId).sort()).toEqual([headA?.id, headB?.id].sort());
      expect(await event(a, 0)).toMatchObject({ status: 'delivered', attempts: 1, claimToken: null });
      const retry = await event(b, 0);
      expect(retry).toMatchObject({ status: 'pending', attempts: 1, claimToken: null, leaseUntil: null });
      expect(retry.nextAttemptAt.getTime() - T0.getTime()).toBeGreaterThanOrEqual(4_500); // 5 s +-10%
      expect((await event(a, 1)).nextAttemptAt.getTime()).toBe(T0.getTime()); // woken by the re-run
    },
  );

  // The README's promise: the database or the relay stopping between two of the outcome's statements at worst
  // sends an event again after its lease. Here the attempt row is written, then the connection is lost.
  it.runIf(name.includes('multi-statement'))(
    'an outcome cut off after its attempt row: the event is claimed again after its lease and delivered once',
    async () => {
      const sess = newId('sess');
      await enqueue(sess, 'step.completed');
      const [head] = await store.claim(10);
      const { sent, restore } = failFirstOutcome(ds, 1, lostConnectionError());
      try {
        await expect(store.record([attempt(head as ClaimedDelivery, 200)])).rejects.toMatchObject({
          code: 'PROTOCOL_CONNECTION_LOST',
        });
      } finally {
        restore();
      }
      expect(sent).toHaveLength(1); // a lost connection is not re-run: the relay's next pass finds the lease
      expect(await event(sess, 0)).toMatchObject({
        status: 'pending',
        attempts: 0,
        claimToken: head?.claimToken,
      });
      store.invalidatePrefetch();
      expect(await store.claim(10)).toEqual([]); // still leased

      clock.advance(10_000 + LEASE_MARGIN_MS + 1);
      store.invalidatePrefetch();
      const [again] = await store.claim(10);
      expect(again?.id).toBe(head?.id);
      expect(again?.claimToken).not.toBe(head?.claimToken);
      const out = await store.record([attempt(again as ClaimedDelivery, 200)]);
      expect(out.results.map((r) => r.result)).toEqual(['delivered']);
      expect(await event(sess, 0)).toMatchObject({ status: 'delivered', attempts: 1, claimToken: null });
      // both sends are on record, each once
      const attempts = await ds.getRepository(WebhookAttemptEntity).find({ where: { eventId: head?.id } });
      expect(attempts).toHaveLength(2);
      expect(logger.warn).not.toHaveBeenCalled();
      // the cut-off relay, were it to come back and write its outcome again, adds its attempt and moves nothing
      await store.record([attempt(head as ClaimedDelivery, 200)]);
      expect(logger.warn).toHaveBeenCalledWith('webhook lease lost; outcome kept as attempt only', {
        count: 1,
      });
      expect(await event(sess, 0)).toMatchObject({ status: 'delivered', attempts: 1 });
    },
  );
});

const deadlockError = () =>
  Object.assign(new Error('Deadlock found when trying to get lock'), {
    code: 'ER_LOCK_DEADLOCK',
    errno: 1213,
  });
const lostConnectionError = () =>
  Object.assign(new Error('Connection lost: The server closed the connection.'), {
    code: 'PROTOCOL_CONNECTION_LOST',
    fatal: true,
  });

/**
 * The relay pool's first outcome text (the one that inserts attempt rows) runs for real up to `keep`
 * statements (negative: all but that many), then answers `error`; later texts run as sent. `sent` holds each
 * outcome text (without the isolation level a connection's first outcome write sets first).
 */
function failFirstOutcome(ds: DataSource, keep: number, error: Error): { sent: string[]; restore(): void } {
  const pool = (ds.driver as unknown as { pool: Pool }).pool;
  const getConnection = pool.getConnection;
  const sent: string[] = [];
  pool.getConnection = function (this: Pool, cb) {
    getConnection.call(this, (err, conn) => {
      if (err) return cb(err, conn);
      const query = conn.query;
      conn.query = function (this: Conn, sql, values, qcb) {
        conn.query = query;
        if (!sql.includes('INSERT INTO webhook_attempt')) return query.call(this, sql, values, qcb);
        sent.push(sql.startsWith(SET_LEVEL) ? sql.slice(sql.indexOf(';\n') + 2) : sql);
        if (sent.length > 1) return query.call(this, sql, values, qcb);
        const level = sql.startsWith(SET_LEVEL) ? 1 : 0;
        const applied = sql.split(';\n').slice(0, keep > 0 ? keep + level : keep);
        const marks = applied.join(';').split('?').length - 1;
        return query.call(this, applied.join(';\n'), values.slice(0, marks), (e) => qcb(e ?? error, null));
      };
      cb(err, conn);
    });
  };
  return { sent, restore: () => (pool.getConnection = getConnection) };
}
