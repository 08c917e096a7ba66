// Owns the webhook events a session queues: one typed builder per event type, so a payload is written in one
// place and its type says what schema/webhooks/<event>.schema.json promises (tools/api-contract.ts holds the
// zod schemas the contract test checks real deliveries against). Only the transition API (session.transition.ts)
// queues them, inside the transaction of the change they report.
import type { OutboxEvent } from '../webhook/outbox';
import type { ConditionMatch } from '../workflow/conditions';
import type { SessionEntity } from './session.entity';
import type { SessionStatus } from './session.machine';
import { type ConditionEnd, completedStepCount, type FailureReason } from './session.state';

type SessionFacts = Pick<
  SessionEntity,
  | 'id'
  | 'businessId'
  | 'environment'
  | 'workflowId'
  | 'workflowRevision'
  | 'currentStage'
  | 'status'
  | 'failureReason'
>;

/** step.completed: one completed step, with its primitive's result fields spread in. */
export interface StepCompletedData {
  session_id: string;
  stage: number;
  primitive: string;
  audit_id: string;
  condition?: ConditionMatch;
  /** The primitive's result (claims, over/threshold, documents, holder_binding, ...). */
  [result: string]: unknown;
}

export type SessionEndStatus = Extract<SessionStatus, 'completed' | 'stopped' | 'failed' | 'expired'>;

/** session.completed / stopped / failed / expired. */
export interface SessionEndedData {
  session_id: string;
  status: SessionEndStatus;
  workflow_id: string;
  workflow_revision: number;
  /** Steps the person completed: not a step whose workflow condition failed the session (issue 29). */
  completed_steps: number;
  /** failed and expired only. */
  failure_reason?: FailureReason;
  /** completed and failed only, when a workflow condition ended the session (ADR 0031). */
  condition?: ConditionEnd;
}

/** session.decision_due: the gate's decision is overdue (ADR 0008); once per gate. */
export interface DecisionDueData {
  session_id: string;
  status: 'awaiting_decision';
  workflow_id: string;
  workflow_revision: number;
  completed_steps: number;
  decision_due: string;
}

/** Every event a session queues, by name. */
export interface SessionEventPayloads {
  'step.completed': StepCompletedData;
  'session.completed': SessionEndedData;
  'session.stopped': SessionEndedData;
  'session.failed': SessionEndedData;
  'session.expired': SessionEndedData;
  'session.decision_due': DecisionDueData;
}
export type SessionEventName = keyof SessionEventPayloads;

/** An outbox row of a session, typed by its event name (what SessionTransition.emit takes). */
export type SessionOutboxEvent = {
  [E in SessionEventName]: Omit<OutboxEvent, 'event' | 'data'> & { event: E; data: SessionEventPayloads[E] };
}[SessionEventName];

const envelope = (s: SessionFacts, now: Date) => ({
  businessId: s.businessId,
  environment: s.environment,
  sessionId: s.id,
  now,
});

export function stepCompleted(
  s: SessionFacts,
  step: {
    stage: number;
    primitive: string;
    auditId: string;
    result: Record<string, unknown>;
    condition: ConditionMatch | null;
  },
  now: Date,
): SessionOutboxEvent {
  return {
    ...envelope(s, now),
    event: 'step.completed',
    data: {
      session_id: s.id,
      stage: step.stage,
      primitive: step.primitive,
      audit_id: step.auditId,
      ...step.result,
      ...(step.condition ? { condition: step.condition } : {}),
    },
  };
}

/**
 * The event of entering a terminal state; `s` is the row as written. completed_steps is its stage, less a step
 * whose workflow condition failed the session (completedStepCount).
 */
export function sessionEnded(
  s: SessionFacts,
  status: SessionEndStatus,
  reason: FailureReason | null,
  condition: ConditionEnd | undefined,
  now: Date,
): SessionOutboxEvent {
  return {
    ...envelope(s, now),
    event: `session.${status}`,
    data: {
      session_id: s.id,
      status,
      workflow_id: s.workflowId,
      workflow_revision: s.workflowRevision,
      completed_steps: completedStepCount(s),
      ...(reason ? { failure_reason: reason } : {}),
      ...(condition ? { condition } : {}),
    },
  };
}

export function decisionDue(s: SessionFacts, due: Date, now: Date): SessionOutboxEvent {
  return {
    ...envelope(s, now),
    event: 'session.decision_due',
    data: {
      session_id: s.id,
      status: 'awaiting_decision',
      workflow_id: s.workflowId,
      workflow_revision: s.workflowRevision,
      completed_steps: s.currentStage,
      decision_due: due.toISOString(),
    },
  };
}
