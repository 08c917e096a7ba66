// The outbox writers on real MariaDB: a transition's events written in one INSERT … SELECT
// (enqueueSessionEvents) get exactly the sequence, counter, delivery id and body that the read-then-insert
// writer (enqueueEvents) gives, after earlier events of either writer.
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { newId } from '../../common/ids';
import { transactionWithRetry } from '../../db/data-source';
import { enqueueEvents, enqueueSessionEvents, type OutboxEvent } from './outbox';
import { WebhookEventEntity } from './webhook-event.entity';

let db: MigratedTestDatabase;
beforeAll(async () => {
  db = await migratedTestDatabase('outbox');
});
afterAll(async () => {
  await db?.close();
});

const now = new Date('2026-11-27T12:00:00.000Z');
const ev = (sessionId: string, event: string, data: object): OutboxEvent => ({
  businessId: 'biz_a',
  environment: 'sandbox',
  sessionId,
  event,
  data,
  now,
});
const rows = async (sessionId: string) =>
  (
    await db.ds.getRepository(WebhookEventEntity).find({ where: { sessionId }, order: { sequence: 'ASC' } })
  ).map(({ sequence, event, counter, deliveryId, body, status, attempts, nextAttemptAt, createdAt }) => ({
    sequence,
    event,
    counter,
    deliveryId,
    body,
    status,
    attempts,
    nextAttemptAt,
    createdAt,
  }));

describe('outbox', () => {
  it('one INSERT … SELECT numbers a transition’s events like the read-then-insert writer', async () => {
    const a = newId('sess');
    const b = newId('sess');
    const batches = (s: string) => [
      [ev(s, 'step.completed', { stage: 0, note: 'quote " and \\ and ü' })],
      [ev(s, 'step.completed', { stage: 1 }), ev(s, 'step.completed', { stage: 2 })],
      [ev(s, 'step.completed', { stage: 3 }), ev(s, 'session.completed', { status: 'completed' })],
    ];
    for (const batch of batches(a)) await transactionWithRetry(db.ds, (m) => enqueueEvents(m, batch));
    // mixed: the first batch by the old writer, the rest in one statement each
    for (const [i, batch] of batches(b).entries())
      await transactionWithRetry(db.ds, async (m) => {
        if (i === 0) await enqueueEvents(m, batch);
        else await enqueueSessionEvents(m, batch);
      });
    const expected = (await rows(a)).map((r) => ({
      ...r,
      deliveryId: r.deliveryId.replace(a, b),
      body: r.body.replace(a, b),
    }));
    expect(await rows(b)).toEqual(expected);
    expect((await rows(b)).map((r) => r.deliveryId)).toEqual([
      `${b}:step.completed:0`,
      `${b}:step.completed:1`,
      `${b}:step.completed:2`,
      `${b}:step.completed:3`,
      `${b}:session.completed:0`,
    ]);
    expect(JSON.parse((await rows(b))[0]?.body as string)).toEqual({
      event: 'step.completed',
      delivery_id: `${b}:step.completed:0`,
      data: { stage: 0, note: 'quote " and \\ and ü' },
    });
  });

  it('a session’s first events start at sequence 0 and counter 0', async () => {
    const s = newId('sess');
    await transactionWithRetry(db.ds, (m) =>
      enqueueSessionEvents(m, [ev(s, 'step.completed', {}), ev(s, 'session.completed', {})]),
    );
    expect((await rows(s)).map((r) => [r.sequence, r.counter, r.deliveryId])).toEqual([
      [0, 0, `${s}:step.completed:0`],
      [1, 0, `${s}:session.completed:0`],
    ]);
  });
});
