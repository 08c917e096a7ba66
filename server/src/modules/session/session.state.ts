// Owns how a session changes state: one guarded write per transition (status + version checked by affected
// rows), in the caller's transaction together with its outbox rows. Also enforces expiry on access.
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { lockSessionRow, transactionWithRetry } from '../../db/data-source';
import { enqueueEvent } from '../webhook/outbox';
import { SessionEntity } from './session.entity';
import { isTerminal, nextStatus, type SessionEvent } from './session.machine';

type Patch = Partial<Pick<SessionEntity, 'currentStage' | 'stepExpiresAt' | 'bindingHash'>>;

/**
 * Applies `event` to the session as read (`s`). Returns the new row, or null when the session changed
 * meanwhile (another writer won), the transition is not allowed from its status, or the session is already
 * overdue at `now` (it has expired, only not yet persisted: only `expire` may be applied then).
 */
export async function applyTransition(
  m: EntityManager,
  s: SessionEntity,
  event: SessionEvent,
  now: Date,
  patch: Patch = {},
): Promise<SessionEntity | null> {
  const to = nextStatus(s.status, event);
  if (!to) return null;
  if (event !== 'expire' && isOverdue(s, now)) return null;
  const set = {
    ...patch,
    status: to,
    version: s.version + 1,
    updatedAt: now,
    ...(isTerminal(to) ? { endedAt: now, stepExpiresAt: null } : {}),
  };
  const res = await m
    .createQueryBuilder()
    .update(SessionEntity)
    .set(set)
    .where('id = :id AND status = :status AND version = :version', {
      id: s.id,
      status: s.status,
      version: s.version,
    })
    .execute();
  if (res.affected !== 1) return null;
  const next = Object.assign(new SessionEntity(), s, set);
  if (isTerminal(to)) {
    await enqueueEvent(m, {
      businessId: s.businessId,
      environment: s.environment,
      sessionId: s.id,
      event: `session.${to}`,
      data: {
        session_id: s.id,
        status: to,
        workflow_id: s.workflowId,
        workflow_revision: s.workflowRevision,
        completed_steps: next.currentStage,
      },
      now,
    });
  }
  return next;
}

/** True when a session that can expire (created, in_progress) is past its overall or step window. */
export const isOverdue = (s: SessionEntity, now: Date): boolean =>
  (s.status === 'created' || s.status === 'in_progress') &&
  (now >= s.expiresAt || (s.stepExpiresAt !== null && now >= s.stepExpiresAt));

/**
 * Expiry enforced on access: if the overall or step window has passed, exactly one caller wins the guarded
 * write (and queues the one session.expired event); every caller gets the persisted state back.
 */
export async function enforceExpiry(
  ds: DataSource,
  clock: Clock,
  s: SessionEntity,
  onQueued?: () => void,
): Promise<SessionEntity> {
  let cur = s;
  for (let i = 0; i < 5 && isOverdue(cur, clock.now()); i++) {
    const snapshot = cur;
    const won = await transactionWithRetry(ds, async (m) => {
      await lockSessionRow(m, snapshot.id);
      return applyTransition(m, snapshot, 'expire', clock.now());
    });
    if (won) {
      onQueued?.();
      return won;
    }
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const fresh = await ds.getRepository(SessionEntity).findOneBy({ id: s.id });
    if (!fresh) return cur;
    cur = fresh;
  }
  return cur;
}

/**
 * The persisted state after a lost guarded write, with expiry enforced (so a loser to expiry sees `expired`).
 * Null only if the row is gone.
 */
export async function rereadSession(
  ds: DataSource,
  clock: Clock,
  id: string,
  onQueued?: () => void,
): Promise<SessionEntity | null> {
  // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
  const fresh = await ds.getRepository(SessionEntity).findOneBy({ id });
  return fresh ? enforceExpiry(ds, clock, fresh, onQueued) : null;
}
