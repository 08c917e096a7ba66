// Owns the facts of a session's state that need no database: why it ended (FailureReason, ConditionEnd) and
// when it is overdue. How a session changes state is session.transition.ts.
import type { z } from 'zod';
import type { ConditionEndSchema, FailureReasonSchema } from './session.contract';
import type { SessionEntity } from './session.entity';
import { canExpire } from './session.machine';

/** The condition that ended a session: its step, its position in that step's list, and the outcome. */
export type ConditionEnd = z.infer<typeof ConditionEndSchema>;

/**
 * Why a session ended failed or expired (GET /v1/sessions/{id} `failure_reason`, session.failed/expired data).
 * failed: `code` is the verification code of the refusal that reached the failure policy, at `stage`; or, when
 * a workflow condition failed the session, the condition's code (conditions.ts CONDITION_FAILURE_REASONS,
 * default condition_not_met) with `stage` the step whose result it tested and refused_responses null.
 * expired: `code` is session_expired (overall window) or step_window_expired (the step's window), `stage` the
 * step in progress (null when the session was never started). One definition: the contract's zod schema.
 */
export type FailureReason = z.infer<typeof FailureReasonSchema>;

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

/** True when a session that can expire (session.machine.ts canExpire) is past its overall or step window. */
export const isOverdue = (
  s: Pick<SessionEntity, 'status' | 'expiresAt' | 'stepExpiresAt'>,
  now: Date,
): boolean =>
  canExpire(s.status) && (now >= s.expiresAt || (s.stepExpiresAt !== null && now >= s.stepExpiresAt));

/** A stored failure_reason (JSON) as an object, or null. */
export function failureReasonOf(s: Pick<SessionEntity, 'failureReason'>): FailureReason | null {
  if (!s.failureReason) return null;
  try {
    return JSON.parse(s.failureReason) as FailureReason;
  } catch {
    return null;
  }
}

/**
 * The step whose condition failed the session (its result was produced, but the workflow refused it, e.g. an
 * age check a minor did not pass), or null. Such a step is not done: the page and the receipt's count never
 * show it as completed (issue 29).
 */
export function conditionFailedStage(s: Pick<SessionEntity, 'status' | 'failureReason'>): number | null {
  if (s.status !== 'failed') return null;
  const r = failureReasonOf(s);
  return r && r.refused_responses === null && r.window === null && r.stage !== null ? r.stage : null;
}

/**
 * The steps a session's events count as completed (`completed_steps`): the position reached, less the step
 * whose workflow condition failed the session (its result exists, but the person did not complete it, e.g. a
 * minor's age check; issue 29), which is the last step reached. A skipped step counts as passed (ADR 0031).
 */
export const completedStepCount = (
  s: Pick<SessionEntity, 'status' | 'failureReason' | 'currentStage'>,
): number => conditionFailedStage(s) ?? s.currentStage;
