// GraphQL types of sessions: the mirror of GET/POST /v1/sessions. Field for field the REST answer in
// camelCase; a step's primitive-specific result (identify: `claims`) sits in `result`, where REST spreads it
// into the step entry. Entities are never exposed directly.
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { JSONScalar } from '../../graphql/scalars';
import { PrimitiveGql } from '../workflow/workflow.graphql';
import type { Primitive } from '../workflow/workflow.steps';
import { SESSION_STATUSES, type SessionStatus, TERMINAL_STATUSES } from './session.machine';

/** The machine's statuses (session.machine.ts), never restated: the web reads them from the schema. */
export const SessionStatusGql = Object.fromEntries(SESSION_STATUSES.map((s) => [s, s])) as {
  [S in SessionStatus]: S;
};
const terminal = [...TERMINAL_STATUSES];
registerEnumType(SessionStatusGql, {
  name: 'SessionStatus',
  description: `${terminal.slice(0, -1).join(', ')} and ${terminal.at(-1)} are terminal.`,
});

@ObjectType('StepResult', { description: 'One completed step of a session.' })
export class StepResultGql {
  @Field(() => Int) stage!: number;
  @Field(() => PrimitiveGql) primitive!: Primitive;
  @Field(() => String, { description: 'GET /v1/audits/{auditId} returns the signed audit record.' })
  auditId!: string;
  @Field(() => Date) completedAt!: Date;
  @Field(() => JSONScalar, {
    description: 'The primitive-specific result, e.g. {"claims": {...}} for identify.',
  })
  result!: Record<string, unknown>;
}

@ObjectType('SessionCreated', { description: 'The answer to createSession (POST /v1/sessions).' })
export class SessionCreatedGql {
  @Field(() => ID) id!: string;
  @Field(() => ID) workflowId!: string;
  @Field(() => Int) workflowRevision!: number;
  @Field(() => String, { description: 'The hosted page to send the person to.' }) url!: string;
  @Field(() => SessionStatusGql) status!: SessionStatus;
  @Field(() => Date) expires!: Date;
  @Field(() => Boolean, {
    description: 'True when an earlier request with the same idempotencyKey created this session.',
  })
  idempotentReplayed!: boolean;
}

@ObjectType('FailureReason', {
  description: 'Why a session failed or expired (REST `failure_reason`).',
})
export class FailureReasonGql {
  @Field(() => String, {
    description:
      'failed: the verification code of the refusal that failed the session (e.g. credential_revoked), ' +
      'or the failure reason of the workflow condition that failed it (condition_not_met, ' +
      'age_requirement_not_met, nationality_not_accepted, document_not_accepted); ' +
      'expired: session_expired (overall window) or step_window_expired (the step window).',
  })
  code!: string;
  @Field(() => Int, { nullable: true, description: 'Zero-based step; null when never started.' })
  stage!: number | null;
  @Field(() => String, { nullable: true, description: 'expired: `overall` or `step`; failed: null.' })
  window!: 'overall' | 'step' | null;
  @Field(() => Int, { nullable: true, description: 'failed: refused wallet responses for the step.' })
  refusedResponses!: number | null;
}

@ObjectType('Session', { description: 'A session with the results produced so far (GET /v1/sessions/{id}).' })
export class SessionGql {
  @Field(() => ID) id!: string;
  @Field(() => ID) workflowId!: string;
  @Field(() => Int) workflowRevision!: number;
  @Field(() => String) url!: string;
  @Field(() => SessionStatusGql) status!: SessionStatus;
  @Field(() => Date) expires!: Date;
  @Field(() => Date) created!: Date;
  @Field(() => JSONScalar, { nullable: true }) metadata!: Record<string, unknown> | null;
  @Field(() => [StepResultGql]) results!: StepResultGql[];
  @Field(() => Date, {
    nullable: true,
    description: 'In awaiting_decision: when the decision is due (then session.decision_due); else null.',
  })
  decisionDue!: Date | null;
  @Field(() => FailureReasonGql, { nullable: true, description: 'Only on failed and expired sessions.' })
  failureReason!: FailureReasonGql | null;
  @Field(() => Boolean, { description: 'True once the status is terminal (the state machine’s list).' })
  ended!: boolean;
  @Field(() => Boolean, {
    description: 'True while the session can still expire (created, in_progress: the state machine’s list).',
  })
  expiring!: boolean;
}

@InputType('CreateSessionInput')
export class CreateSessionInputGql {
  @Field(() => ID) workflowId!: string;
  @Field(() => JSONScalar, { nullable: true, description: 'A JSON object of at most 16 KiB.' })
  metadata?: unknown;
  @Field(() => Int, { nullable: true, description: 'Seconds from 60 to 86,400 (default 3,600).' })
  expiresIn?: number;
  @Field(() => String, {
    nullable: true,
    description:
      'Where the hosted page offers the way back after the session ended; its origin must be registered (setReturnOrigins).',
  })
  returnUrl?: string;
}
