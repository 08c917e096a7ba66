// GraphQL types of workflows (dashboard API). Entities are never exposed directly.
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { ConditionFailureReason, ConditionOperator, ConditionOutcome } from './conditions';
import { type HolderPolicy, PRIMITIVES, type Primitive } from './workflow.steps';

/** The GraphQL enum `Primitive`: its values are the registry's primitives (workflow/primitives, ADR 0054). */
export const PrimitiveGql = Object.fromEntries(PRIMITIVES.map((p) => [p, p])) as {
  readonly [P in Primitive]: P;
};
registerEnumType(PrimitiveGql, { name: 'Primitive', description: 'The verification primitive a step runs.' });

export enum ConditionOperatorGql {
  equals = 'equals',
  in = 'in',
  not_in = 'not_in',
}
registerEnumType(ConditionOperatorGql, {
  name: 'ConditionOperator',
  description: 'equals one value, in a set, or not in a set.',
});

export enum ConditionOutcomeGql {
  fail = 'fail',
  skip = 'skip',
  complete = 'complete',
}
registerEnumType(ConditionOutcomeGql, {
  name: 'ConditionOutcome',
  description:
    'What a matching condition does: fail ends the session failed, skip goes on at a later step, complete ends it completed.',
});

export enum ConditionFailureReasonGql {
  condition_not_met = 'condition_not_met',
  age_requirement_not_met = 'age_requirement_not_met',
  nationality_not_accepted = 'nationality_not_accepted',
  document_not_accepted = 'document_not_accepted',
}
registerEnumType(ConditionFailureReasonGql, {
  name: 'ConditionFailureReason',
  description: 'The failure_reason code a fail outcome gives the session.',
});

@ObjectType('StepCondition', {
  description:
    "A rule on the step's result, evaluated when the step completes; the first that holds decides (ADR 0031).",
})
export class StepConditionGql {
  @Field(() => String, {
    description: 'age_verify: `over`; identify: nationality or document_status (a requested claim).',
  })
  claim!: string;
  @Field(() => ConditionOperatorGql) operator!: ConditionOperator;
  @Field(() => [String], { description: 'equals: one value; in/not_in: the set. `over`: "true" or "false".' })
  values!: string[];
  @Field(() => ConditionOutcomeGql) outcome!: ConditionOutcome;
  @Field(() => Int, { nullable: true, description: 'skip: the zero-based step to go on at.' })
  skipTo?: number;
  @Field(() => ConditionFailureReasonGql, { nullable: true, description: 'fail: the failure_reason code.' })
  failureReason?: ConditionFailureReason;
}

@InputType('StepConditionInput')
export class StepConditionInput {
  @Field(() => String) claim!: string;
  @Field(() => ConditionOperatorGql) operator!: ConditionOperator;
  @Field(() => [String]) values!: string[];
  @Field(() => ConditionOutcomeGql) outcome!: ConditionOutcome;
  @Field(() => Int, { nullable: true }) skipTo?: number;
  @Field(() => ConditionFailureReasonGql, { nullable: true }) failureReason?: ConditionFailureReason;
}

export enum HolderPolicyGql {
  same_as_first = 'same_as_first',
  any = 'any',
}
registerEnumType(HolderPolicyGql, {
  name: 'HolderPolicy',
  description:
    'Who may present a step: same_as_first (default) binds it to the holder of the first step; any opts it out (e.g. a second signer).',
});

@ObjectType('WorkflowStep')
export class WorkflowStepGql {
  @Field(() => PrimitiveGql) primitive!: Primitive;
  @Field(() => [String], { nullable: true, description: 'identify: requested claims.' }) claims?: string[];
  @Field(() => Int, { nullable: true, description: 'age_verify: age threshold in years.' })
  threshold?: number;
  @Field(() => Int, { nullable: true, description: 'sign: documents each run uploads.' }) documents?: number;
  @Field(() => String, { nullable: true, description: 'attestation: inline terms (at most 1,000 words).' })
  terms?: string;
  @Field(() => Boolean, { description: 'Wait for the business to continue or stop after this step.' })
  gateAfter!: boolean;
  @Field(() => [StepConditionGql], {
    description: 'identify and age_verify: conditions on the result (empty when none).',
  })
  conditions!: StepConditionGql[];
  @Field(() => HolderPolicyGql, {
    description:
      'same_as_first: presented by the holder of the first step (ADR 0026); any: anyone (opted out).',
  })
  holder!: HolderPolicy;
  @Field(() => [String], {
    nullable: true,
    description:
      'Credential routes whose issuer trust may validate this step (null: every route available in the environment that offers the primitive).',
  })
  routes?: string[];
}

@InputType('WorkflowStepInput')
export class WorkflowStepInput {
  @Field(() => PrimitiveGql) primitive!: Primitive;
  @Field(() => [String], { nullable: true }) claims?: string[];
  @Field(() => Int, { nullable: true }) threshold?: number;
  @Field(() => Int, { nullable: true }) documents?: number;
  @Field(() => String, { nullable: true }) terms?: string;
  @Field(() => Boolean, { nullable: true }) gateAfter?: boolean;
  @Field(() => [StepConditionInput], { nullable: true }) conditions?: StepConditionInput[];
  @Field(() => HolderPolicyGql, {
    nullable: true,
    description: 'Default same_as_first; any is refused on the first step.',
  })
  holder?: HolderPolicy;
  @Field(() => [String], {
    nullable: true,
    description:
      'Credential route ids (GET /v1/catalog) whose issuer trust may validate this step; default all available.',
  })
  routes?: string[];
}

@ObjectType('IntendedUse', {
  description:
    "What a workflow's sessions ask for, as a wallet shows it (ADR 0042); sent in the registration certificate.",
})
export class IntendedUseGql {
  @Field(() => String, { description: 'The purpose, 1-300 characters.' }) purpose!: string;
  @Field(() => String, { description: "The purpose's language: en, de or fr." }) lang!: string;
  @Field(() => String, {
    nullable: true,
    description: "The registration certificate's intended-use identifier, when one was registered.",
  })
  identifier?: string;
}

@InputType('IntendedUseInput')
export class IntendedUseInput {
  @Field(() => String, { description: 'Required, 1-300 characters, one line.' }) purpose!: string;
  @Field(() => String, { nullable: true, description: 'en (default), de or fr.' }) lang?: string;
  @Field(() => String, {
    nullable: true,
    description: 'The intended-use identifier (URI or token, at most 128 visible ASCII characters).',
  })
  identifier?: string;
}

@InputType('CreateWorkflowInput')
export class CreateWorkflowInput {
  @Field(() => String) name!: string;
  @Field(() => Boolean, {
    nullable: true,
    description: 'Sessions are created only through the API (default true).',
  })
  apiOnly?: boolean;
  @Field(() => [WorkflowStepInput], { nullable: true }) steps?: WorkflowStepInput[];
  @Field(() => IntendedUseInput, {
    nullable: true,
    description: "The intended use; absent: the business's default purpose applies.",
  })
  intendedUse?: IntendedUseInput;
}

@ObjectType('Workflow')
export class WorkflowGql {
  @Field(() => ID) id!: string;
  @Field(() => String, {
    description:
      'sandbox or production: the environment of the credential that created it; only its sessions run it.',
  })
  environment!: string;
  @Field(() => String) name!: string;
  @Field(() => Boolean) apiOnly!: boolean;
  @Field(() => [WorkflowStepGql], { description: 'The editable draft; publish to make it usable.' })
  draftSteps!: WorkflowStepGql[];
  @Field(() => IntendedUseGql, {
    nullable: true,
    description:
      "The draft's intended use; null: the business's default purpose (relying party) is sent. Publish to use it.",
  })
  intendedUse!: IntendedUseGql | null;
  @Field(() => Int, { description: '0 until first published.' }) latestRevision!: number;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date) updatedAt!: Date;
}

@ObjectType('WorkflowRevision')
export class WorkflowRevisionGql {
  @Field(() => ID) workflowId!: string;
  @Field(() => Int) revision!: number;
  @Field(() => String) name!: string;
  @Field(() => Boolean) apiOnly!: boolean;
  @Field(() => [WorkflowStepGql]) steps!: WorkflowStepGql[];
  @Field(() => IntendedUseGql, {
    nullable: true,
    description: "The revision's intended use; null: the business's default purpose is sent.",
  })
  intendedUse!: IntendedUseGql | null;
  @Field(() => Date) publishedAt!: Date;
}
