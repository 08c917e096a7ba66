// Owns writing the support timeline of a session (session_event). Always called with the manager of the
// transaction that makes the change, so an entry exists if and only if the change committed. The `created`
// entry is not written: the timeline derives it from the session row (support.service.ts, ADR 0023).

import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { base32, newId } from '../../common/ids';
import { columnList, insertRow, insertRowLater, later, rowValues } from '../../db/fast-sql';
import { SessionEventEntity } from './session-event.entity';

/** Timeline kinds. */
export const SESSION_EVENT_KINDS = [
  'created',
  'opened',
  'started',
  'wallet_request',
  'document_shown_to_end',
  'wallet_response_refused',
  'wallet_response_accepted',
  'step_completed',
  'condition_matched',
  'awaiting_decision',
  'continued',
  'completed',
  'stopped',
  'failed',
  'expired',
] as const;
export type SessionEventKind = (typeof SESSION_EVENT_KINDS)[number];

export interface SessionRef {
  id: string;
  businessId: string;
  environment: 'sandbox' | 'production';
}

export interface SessionEventInput {
  kind: SessionEventKind;
  at: Date;
  stage?: number | null;
  code?: string | null;
  detail?: Record<string, unknown> | null;
}

let lastOrder = 0n;
/**
 * A strictly increasing key within this process (wall-clock microseconds, bumped on ties): entries of one
 * session written at the same injected-clock instant keep their write order. Fixed width, so it sorts as text.
 */
export function nextOrderKey(): string {
  const now = BigInt(Date.now()) * 1000n;
  lastOrder = now > lastOrder ? now : lastOrder + 1n;
  return lastOrder.toString().padStart(20, '0');
}

const row = (s: SessionRef, e: SessionEventInput, id: string): SessionEventEntity => ({
  id,
  orderKey: nextOrderKey(),
  sessionId: s.id,
  businessId: s.businessId,
  environment: s.environment,
  at: e.at,
  kind: e.kind,
  stage: e.stage ?? null,
  code: e.code ?? null,
  detail: e.detail ? JSON.stringify(e.detail) : null,
});

/** A timeline row of `s`, its order key taken now (rows written later in one batch keep this order). */
export const sessionEventRow = (s: SessionRef, e: SessionEventInput): SessionEventEntity =>
  row(s, e, newId('sev'));

/**
 * Writes timeline rows (sessionEventRow) in one multi-row INSERT: a transition's rows (e.g. response accepted,
 * step completed, completed) are one statement instead of one each (ADR 0045). A write that decides nothing:
 * in a batched transaction it goes with the next round trip (fast-sql `later`, ADR 0058).
 */
export async function recordSessionEventRows(m: EntityManager, rows: SessionEventEntity[]): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length === 1)
    return insertRowLater(m.dataSource, SessionEventEntity, rows[0] as SessionEventEntity, m);
  const ds = m.dataSource;
  const one = `(${rowValues(ds, SessionEventEntity, rows[0] as SessionEventEntity)
    .map(() => '?')
    .join(', ')})`;
  await later(
    ds,
    `INSERT INTO session_event (${columnList(ds, SessionEventEntity)}) VALUES ${rows.map(() => one).join(', ')}`,
    rows.flatMap((r) => rowValues(ds, SessionEventEntity, r)),
    m,
  );
}

export async function recordSessionEvent(
  m: EntityManager,
  s: SessionRef,
  e: SessionEventInput,
): Promise<void> {
  // plain INSERT (fast-sql.ts): one runs in every session create and transition (perf, ADR 0015)
  await insertRow(m.dataSource, SessionEventEntity, row(s, e, newId('sev')), m);
}

/** The id of a timeline row recorded once (recordSessionEventOnce): derived, so a second writer collides. */
export function onceEventId(sessionId: string, kind: SessionEventKind, onceKey?: string): string {
  const seed = onceKey === undefined ? `${sessionId}:${kind}` : `${sessionId}:${kind}:${onceKey}`;
  return `sev_${base32(createHash('sha256').update(seed).digest()).slice(0, 26)}`;
}

/**
 * Records `kind` at most once per session (e.g. `opened`: the first time the hosted page was opened, not every
 * reload), or once per `onceKey` within the session (e.g. one `document_shown_to_end` per stage and document).
 * The id is derived from session, kind and key, so concurrent first writers collide and one is ignored.
 */
export async function recordSessionEventOnce(
  m: EntityManager,
  s: SessionRef,
  e: SessionEventInput,
  onceKey?: string,
): Promise<void> {
  const id = onceEventId(s.id, e.kind, onceKey);
  // INSERT IGNORE alone (ADR 0045 amendment): a reload is one statement either way, a first open one less
  await m
    .createQueryBuilder()
    .insert()
    .into(SessionEventEntity)
    .values(row(s, e, id))
    .orIgnore()
    .execute();
}
