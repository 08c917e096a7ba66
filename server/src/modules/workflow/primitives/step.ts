// The shape of a workflow step, below everything that reads one: the primitive names, a step's stored fields,
// its holder policy and its conditions' shape. The knowledge of each primitive (validation, window, request,
// result, evidence, audit, conditions, UI and receipt keys) is its PrimitiveSpec (./index.ts, ADR 0054); this
// file only names them. Adding a primitive starts here: its name below, then the compiler names the rest.

/** Every primitive, in the order the API and the dashboard list them. Each has a PrimitiveSpec (./index.ts). */
export const PRIMITIVES = ['identify', 'age_verify', 'sign', 'attestation'] as const;
export type Primitive = (typeof PRIMITIVES)[number];

/** Claims an identify step may request. document_status is the status-list check, not a disclosed claim. */
export const IDENTIFY_CLAIMS = [
  'given_name',
  'family_name',
  'birth_date',
  'nationality',
  'document_status',
] as const;
export type IdentifyClaim = (typeof IDENTIFY_CLAIMS)[number];

/** Step `holder` values: the holder of the first step (default) or anyone (an explicit opt-out). */
export const HOLDER_POLICIES = ['same_as_first', 'any'] as const;
export type HolderPolicy = (typeof HOLDER_POLICIES)[number];

export const CONDITION_OPERATORS = ['equals', 'in', 'not_in'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** fail: the session ends failed; skip: the session goes on at `skip_to`; complete: the session completes. */
export const CONDITION_OUTCOMES = ['fail', 'skip', 'complete'] as const;
export type ConditionOutcome = (typeof CONDITION_OUTCOMES)[number];

/**
 * The `failure_reason.code` a fail outcome may give, a fixed documented list (the business picks one; free text
 * would make the code unpredictable for integrators and could carry personal data). Default condition_not_met.
 */
export const CONDITION_FAILURE_REASONS = [
  'condition_not_met',
  'age_requirement_not_met',
  'nationality_not_accepted',
  'document_not_accepted',
] as const;
export type ConditionFailureReason = (typeof CONDITION_FAILURE_REASONS)[number];

export interface StepCondition {
  /** age_verify: `over`; identify: nationality or document_status (one of the step's requested claims). */
  claim: string;
  operator: ConditionOperator;
  /** equals: exactly one value; in, not_in: 1-50 values. `over` takes "true" or "false". */
  values: string[];
  outcome: ConditionOutcome;
  /** skip: the zero-based step to go on at; later than the step after this one. */
  skip_to?: number;
  /** fail: the failure_reason code (CONDITION_FAILURE_REASONS); condition_not_met when absent. */
  failure_reason?: ConditionFailureReason;
}

export interface WorkflowStep {
  primitive: Primitive;
  /** identify: requested claims. */
  claims?: IdentifyClaim[];
  /** age_verify: age threshold in years. */
  threshold?: number;
  /** sign: number of documents each run must upload. */
  documents?: number;
  /** attestation: inline terms. */
  terms?: string;
  /** After this step completes, wait for the business to continue or stop. */
  gate_after?: boolean;
  /** Primitives with condition support (PrimitiveSpec.conditions): rules on the result (conditions.ts). */
  conditions?: StepCondition[];
  /**
   * Who may present this step (ADR 0026): `same_as_first` (the default, not stored) binds it to the holder of the
   * session's first step; `any` opts it out (e.g. a second signer). Never `any` on the first step.
   */
  holder?: HolderPolicy;
  /**
   * The credential routes (catalog route ids) whose issuer trust may validate this step's credential (ADR 0036).
   * Absent: every route available in the session's environment that offers the step's primitive.
   */
  routes?: string[];
}
