// Owns writing webhook events into the transactional outbox. Called inside the caller's transaction that made
// the state change, so an event exists if and only if the change committed (no "send after commit").
import type { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import type { Environment } from '../../config/config';
import { isMysql } from '../../db/data-source';
import { later } from '../../db/fast-sql';
import { WebhookEventEntity } from './webhook-event.entity';

export interface OutboxEvent {
  businessId: string;
  environment: Environment;
  sessionId: string;
  event: string;
  /** The payload; a session's events are built by the typed builders of modules/session/session.events.ts. */
  data: object;
  now: Date;
}

/**
 * Queues one event. `sequence` orders events within the session (0, 1, ...); `counter` numbers events of the
 * same name within the session (two step.completed -> 0 and 1); delivery_id = `<session>:<event>:<counter>`.
 * The body is stored exactly as it will be signed and sent.
 *
 * Concurrency: the caller's guarded session update already serializes writers of one session; the locking
 * read below (MySQL) additionally reads the latest committed rows rather than a stale snapshot.
 */
export async function enqueueEvent(manager: EntityManager, e: OutboxEvent): Promise<{ deliveryId: string }> {
  return (await enqueueEvents(manager, [e]))[0] as { deliveryId: string };
}

/**
 * Queues events of one session in order (a transition's step.completed and session.completed): one locking
 * read of the session's earlier events and one INSERT for all of them (ADR 0045).
 */
export async function enqueueEvents(
  manager: EntityManager,
  events: readonly OutboxEvent[],
): Promise<{ deliveryId: string }[]> {
  const first = events[0];
  if (!first) return [];
  if (events.some((e) => e.sessionId !== first.sessionId))
    throw new Error('enqueueEvents: events of one session only');
  // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
  const qb = manager
    .getRepository(WebhookEventEntity)
    .createQueryBuilder('e')
    .select(['e.id', 'e.sequence', 'e.event'])
    .where('e.sessionId = :sessionId', { sessionId: first.sessionId });
  const type = manager.dataSource.options.type;
  if (type === 'mysql' || type === 'mariadb')
    qb.useIndex('IDX_webhook_event_session_seq').setLock('pessimistic_write');
  const earlier = await qb.getMany();

  let sequence = earlier.reduce((max, r) => Math.max(max, r.sequence), -1);
  const seen = earlier.map((r) => r.event);
  const rows = events.map((e) => {
    sequence++;
    const counter = seen.filter((name) => name === e.event).length;
    seen.push(e.event);
    const deliveryId = `${e.sessionId}:${e.event}:${counter}`;
    return {
      id: newId('whevt'),
      businessId: e.businessId,
      environment: e.environment,
      sessionId: e.sessionId,
      sequence,
      event: e.event,
      counter,
      deliveryId,
      body: JSON.stringify({ event: e.event, delivery_id: deliveryId, data: e.data }),
      status: 'pending' as const,
      attempts: 0,
      nextAttemptAt: e.now,
      lastError: null,
      createdAt: e.now,
      deliveredAt: null,
    };
  });
  await manager.getRepository(WebhookEventEntity).insert(rows);
  return rows.map((r) => ({ deliveryId: r.deliveryId }));
}

/** What may stand unescaped inside a JSON string and a delivery id (session ids and event names are these). */
const PLAIN = /^[\w.-]+$/;

/**
 * Queues a transition's events of one session (session.transition.ts), like enqueueEvents but on MySQL in one
 * statement (ADR 0045, statements per session): an `INSERT … SELECT` whose SELECT reads the session's next
 * sequence and each event name's counter from its earlier rows, so the sequence, the counter, the delivery id
 * and the body that carries it are computed by the database in the insert itself. The caller's guarded move
 * holds the session row, so writers of one session are serialized as with the locking read; the unique
 * (session_id, sequence) and delivery_id indexes still refuse a duplicate. The embedded engine keeps
 * enqueueEvents (its one writer needs no lock, and its statements are not the hot path's). With `claim` the rows
 * carry this node's relay's claim (ADR 0071); answers whether they do (only the MySQL statement writes it).
 */
export async function enqueueSessionEvents(
  manager: EntityManager,
  events: readonly OutboxEvent[],
  claim?: ClaimAtCommit,
): Promise<boolean> {
  const first = events[0];
  if (!first) return false;
  const ds = manager.dataSource;
  if (
    !isMysql(ds) ||
    events.some((e) => e.sessionId !== first.sessionId || !PLAIN.test(e.event)) ||
    !PLAIN.test(first.sessionId)
  ) {
    await enqueueEvents(manager, events);
    return false;
  }
  // earlier rows of the session: the next sequence and, per distinct event name, how many there are
  const names = [...new Set(events.map((e) => e.event))];
  const earlier = `(SELECT COALESCE(MAX(sequence), -1) + 1 AS seq, ${names
    .map((_, j) => `COALESCE(SUM(event = ?), 0) AS c${j}`)
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    .join(', ')} FROM webhook_event WHERE session_id = ?) p`;
  const selects: string[] = [];
  const params: unknown[] = [];
  const seen: string[] = [];
  events.forEach((e, i) => {
    const j = names.indexOf(e.event);
    // counter: earlier rows of this name plus this batch's before it
    const counter = `p.c${j} + ${seen.filter((n) => n === e.event).length}`;
    seen.push(e.event);
    const idPrefix = `${e.sessionId}:${e.event}:`;
    selects.push(
      `SELECT ?, ?, ?, ?, p.seq + ${i}, ?, ${counter}, CONCAT(?, ${counter}), CONCAT(?, ${counter}, ?), 'pending', 0, ?, NULL, ?, NULL, ?, ? FROM ${earlier}`,
    );
    params.push(
      newId('whevt'),
      e.businessId,
      e.environment,
      e.sessionId,
      e.event,
      idPrefix,
      // the body exactly as JSON.stringify({ event, delivery_id, data }) writes it
      `{"event":${JSON.stringify(e.event)},"delivery_id":"${idPrefix}`,
      `","data":${JSON.stringify(e.data)}}`,
      // claimed at the commit: due when the claim's lease runs out, as a relay's compare-and-set leaves it
      claim ? claim.lease : e.now,
      e.now,
      claim?.token ?? null,
      claim?.lease ?? null,
      ...names,
      e.sessionId,
    );
  });
  // nothing waits on its answer: in a batched transaction it goes with the COMMIT (ADR 0058)
  await later(
    ds,
    `INSERT INTO webhook_event (id, business_id, environment, session_id, sequence, event, counter, delivery_id, body, status, attempts, next_attempt_at, last_error, created_at, delivered_at, claim_token, lease_until) ${selects.join(' UNION ALL ')}`,
    params,
    manager,
  );
  return claim !== undefined;
}

/**
 * A claim of this node's relay on the events a transition queues (ADR 0071): its token and lease, written with
 * the rows, so that the relay sends them after the commit without a claim of its own.
 */
export interface ClaimAtCommit {
  token: string;
  lease: Date;
}
