// Owns the webhook events a session queues: one typed builder per event type, so a payload is written in one
// place and its type is the z.infer of the zod schema (session.contract.ts) that schema/webhooks/<event>.schema.json
// is generated from and the contract test checks real deliveries against. Only the transition API (session.transition.ts)
// queues them, inside the transaction of the change they report.
import type { z } from 'zod';
import type { OutboxEvent } from '../webhook/outbox';
import type { ConditionMatch } from '../workflow/conditions';
import type { Primitive } from '../workflow/workflow.steps';
import type {
  DecisionDueDataSchema,
  SessionEndedDataSchema,
  SessionEndStatus,
  StepCompletedDataSchema,
} from './session.contract';
import type { SessionEntity } from './session.entity';
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
export type StepCompletedData = z.infer<typeof StepCompletedDataSchema>;
/** session.completed / stopped / failed / expired. */
export type SessionEndedData = z.infer<typeof SessionEndedDataSchema>;
/** session.decision_due: the gate's decision is overdue (ADR 0008); once per gate. */
export type DecisionDueData = z.infer<typeof DecisionDueDataSchema>;
export type { SessionEndStatus };

/** Every event a session queues, by name: each `data` is the z.infer of its contract schema. */
export type SessionEventPayloads = {
  'step.completed': StepCompletedData;
  'session.completed': SessionEndedData;
  'session.stopped': SessionEndedData;
  'session.failed': SessionEndedData;
  'session.expired': SessionEndedData;
  'session.decision_due': DecisionDueData;
};
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
    primitive: Primitive;
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
