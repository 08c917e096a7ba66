// Owns how a session changes state: one guarded write per transition (status + version checked by affected
// rows), in the caller's transaction together with its outbox rows. Also enforces expiry on access.
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { lockSessionRow, transactionWithRetry } from '../../db/data-source';
import { recordSessionEvent, type SessionEventKind } from '../support/session-events';
import { enqueueEvent } from '../webhook/outbox';
import { SessionEntity } from './session.entity';
import { isTerminal, nextStatus, type SessionEvent } from './session.machine';

type Patch = Partial<
  Pick<
    SessionEntity,
    'currentStage' | 'stepExpiresAt' | 'bindingHash' | 'decisionDueAt' | 'decisionRemindedAt'
  >
> & {
  /** Why a `fail` happens (the caller knows the refusal); `expire` computes its own. */
  failure?: FailureReason;
  /** The workflow condition that ended the session (session.completed/failed `condition`, ADR 0031). */
  condition?: ConditionEnd;
};

/** The condition that ended a session: its step, its position in that step's list, and the outcome. */
export interface ConditionEnd {
  stage: number;
  index: number;
  outcome: 'fail' | 'complete';
}

/**
 * Why a session ended failed or expired (GET /v1/sessions/{id} `failure_reason`, session.failed/expired data).
 * failed: `code` is the verification code of the refusal that reached the failure policy, at `stage`; or, when
 * a workflow condition failed the session, the condition's code (conditions.ts CONDITION_FAILURE_REASONS,
 * default condition_not_met) with `stage` the step whose result it tested and refused_responses null.
 * expired: `code` is session_expired (overall window) or step_window_expired (the step's window), `stage` the
 * step in progress (null when the session was never started).
 */
export interface FailureReason {
  code: string;
  stage: number | null;
  window: 'overall' | 'step' | null;
  /** failed only: refused wallet responses for that step; null for expired. */
  refused_responses: number | null;
}

/** Which window an overdue session passed at `now`; the overall one wins when both have. */
export function expiryReason(s: SessionEntity, now: Date): FailureReason {
  const overall = now.getTime() >= s.expiresAt.getTime();
  return {
    code: overall ? 'session_expired' : 'step_window_expired',
    stage: s.status === 'created' ? null : s.currentStage,
    window: overall ? 'overall' : 'step',
    refused_responses: null,
  };
}

/** The timeline entry of each transition (support view). */
const TIMELINE_KIND: Record<SessionEvent, SessionEventKind> = {
  start: 'started',
  step_completed_more: 'step_completed',
  step_completed_gate: 'step_completed',
  step_completed_last: 'step_completed',
  continue: 'continued',
  continue_last: 'continued',
  stop: 'stopped',
  fail: 'failed',
  expire: 'expired',
};

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
  { failure, condition, ...patch }: Patch = {},
): Promise<SessionEntity | null> {
  const to = nextStatus(s.status, event);
  if (!to) return null;
  if (event !== 'expire' && isOverdue(s, now)) return null;
  const reason =
    event === 'expire'
      ? expiryReason(s, now)
      : to === 'failed'
        ? (failure ?? { code: 'failed', stage: s.currentStage, window: null, refused_responses: null })
        : null;
  const set = {
    ...patch,
    ...(reason ? { failureReason: JSON.stringify(reason) } : {}),
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
  await recordTransition(m, s, event, to, now, reason);
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
        ...(reason ? { failure_reason: reason } : {}),
        ...(condition ? { condition } : {}),
      },
      now,
    });
  }
  return next;
}

/** The timeline entries of one transition, in its transaction. */
async function recordTransition(
  m: EntityManager,
  s: SessionEntity,
  event: SessionEvent,
  to: SessionEntity['status'],
  now: Date,
  reason: FailureReason | null,
): Promise<void> {
  const kind = TIMELINE_KIND[event];
  const stage = kind === 'started' ? 0 : s.status === 'created' ? null : s.currentStage;
  await recordSessionEvent(m, s, {
    kind,
    at: now,
    stage: reason ? reason.stage : stage,
    code: reason?.code ?? null,
    detail: reason ? { window: reason.window, refused_responses: reason.refused_responses } : null,
  });
  if (to === 'completed' || to === 'awaiting_decision')
    await recordSessionEvent(m, s, { kind: to, at: now, stage: to === 'completed' ? null : s.currentStage });
}

/** True when a session that can expire (created, in_progress) is past its overall or step window. */
export const isOverdue = (
  s: Pick<SessionEntity, 'status' | 'expiresAt' | 'stepExpiresAt'>,
  now: Date,
): boolean =>
  (s.status === 'created' || s.status === 'in_progress') &&
  (now >= s.expiresAt || (s.stepExpiresAt !== null && now >= s.stepExpiresAt));

/** Attempts of an expiry transaction chosen as a deadlock victim (see enforceExpiry). */
const EXPIRE_ATTEMPTS = 10;

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
    // Many expiries at once (sweepers on several nodes, readers) deadlock on the outbox index's gap locks of
    // different sessions; each retry re-runs the guarded write, so retrying more is safe and spares a 5xx.
    const won = await transactionWithRetry(
      ds,
      async (m) => {
        await lockSessionRow(m, snapshot.id);
        return applyTransition(m, snapshot, 'expire', clock.now());
      },
      EXPIRE_ATTEMPTS,
    );
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
