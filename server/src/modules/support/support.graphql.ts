// GraphQL types of the support views (session list and timeline). Entities are never exposed directly.
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { EnvironmentGql, JSONScalar } from '../../graphql/scalars';
import { FailureReasonGql, SessionStatusGql } from '../session/session.graphql';
import type { SessionStatus } from '../session/session.machine';
import { PageInfoGql } from '../webhook/webhook.graphql';

@InputType('SessionListFilter')
export class SessionListFilterGql {
  @Field(() => SessionStatusGql, { nullable: true }) status?: SessionStatus | null;
  @Field(() => ID, { nullable: true }) workflowId?: string | null;
  @Field(() => EnvironmentGql, {
    nullable: true,
    description: "Default: every environment the caller may read (today: its API key's).",
  })
  environment?: EnvironmentGql | null;
  @Field(() => Date, { nullable: true, description: 'Created at or after.' }) createdFrom?: Date | null;
  @Field(() => Date, { nullable: true, description: 'Created before.' }) createdTo?: Date | null;
  @Field(() => String, {
    nullable: true,
    description:
      "Your reference: 1-200 characters the session's metadata contains (any key or value, as its JSON text).",
  })
  reference?: string | null;
}

@ObjectType('SessionSummary', {
  description: 'A session as listed for support (no results, no personal data).',
})
export class SessionSummaryGql {
  @Field(() => ID) id!: string;
  @Field(() => EnvironmentGql) environment!: 'sandbox' | 'production';
  @Field(() => ID) workflowId!: string;
  @Field(() => Int) workflowRevision!: number;
  @Field(() => SessionStatusGql) status!: SessionStatus;
  @Field(() => Int, { description: 'Zero-based step in progress (or next to start).' }) currentStage!: number;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) expiresAt!: Date;
  @Field(() => Date, { nullable: true }) endedAt!: Date | null;
  @Field(() => FailureReasonGql, { nullable: true, description: 'Only on failed and expired sessions.' })
  failureReason!: FailureReasonGql | null;
  @Field(() => JSONScalar, {
    nullable: true,
    description: 'The metadata the session was created with (your reference), as given.',
  })
  metadata!: Record<string, unknown> | null;
}

@ObjectType('SessionSummaryPage')
export class SessionSummaryPageGql {
  @Field(() => [SessionSummaryGql]) nodes!: SessionSummaryGql[];
  @Field(() => PageInfoGql) pageInfo!: PageInfoGql;
}

@ObjectType('SessionTimelineEntry')
export class SessionTimelineEntryGql {
  @Field(() => Date) at!: Date;
  @Field(() => String, {
    description:
      "created, opened (first time), started, wallet_request, document_shown_to_end (a sign step's document was " +
      'shown on the page to its end; never a claim that it was read), wallet_response_refused, ' +
      'wallet_response_accepted, step_completed, awaiting_decision, continued, completed, stopped, failed, ' +
      'expired, webhook_queued, webhook_attempt.',
  })
  kind!: string;
  @Field(() => Int, { nullable: true }) stage!: number | null;
  @Field(() => String, {
    nullable: true,
    description:
      'wallet_response_refused: the refusal code; failed/expired: the failure code; webhook_attempt: the ' +
      'HTTP status (null when no answer came).',
  })
  code!: string | null;
  @Field(() => JSONScalar, { nullable: true, description: 'Kind-specific facts; never personal data.' })
  detail!: Record<string, unknown> | null;
}

@ObjectType('SessionTimeline')
export class SessionTimelineGql {
  @Field(() => SessionSummaryGql) session!: SessionSummaryGql;
  @Field(() => [SessionTimelineEntryGql], { description: 'Oldest first.' })
  entries!: SessionTimelineEntryGql[];
}
