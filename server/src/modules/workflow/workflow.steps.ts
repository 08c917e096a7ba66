// Owns the shape and validation of workflow steps. A step runs one primitive; `gate_after` makes the session
// wait in awaiting_decision after the step until the business continues or stops it; `conditions` decide by
// themselves what follows a step's result (conditions.ts, ADR 0031).
import { AppError } from '../../common/errors';
import { type StepCondition, validateConditions } from './conditions';

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

/** Primitives whose verification runs end to end; publishing others would be refused. All four run now. */
export const RUNNABLE_PRIMITIVES: ReadonlySet<Primitive> = new Set([
  'identify',
  'age_verify',
  'sign',
  'attestation',
]);

export const MAX_STEPS = 10;
export const MAX_ATTESTATION_WORDS = 1000;

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
  /** identify and age_verify: rules on the result, evaluated when the step completes (conditions.ts). */
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

export const MAX_STEP_ROUTES = 20;

/** Step `holder` values: the holder of the first step (default) or anyone (an explicit opt-out). */
export const HOLDER_POLICIES = ['same_as_first', 'any'] as const;
export type HolderPolicy = (typeof HOLDER_POLICIES)[number];
/** A step's holder policy with the default applied. */
export const holderPolicyOf = (step: WorkflowStep): HolderPolicy => step.holder ?? 'same_as_first';

/** Per-step security window in minutes (see README: identify and attestation 10, age_verify 3, sign 30). */
export const STEP_WINDOW_MINUTES: Record<Primitive, number> = {
  identify: 10,
  age_verify: 3,
  sign: 30,
  attestation: 10,
};

const wordCount = (s: string) => s.trim().split(/\s+/).filter(Boolean).length;

/** Validates and normalizes a step list. `forPublish` adds the rules that only bind published revisions. */
export function validateSteps(input: unknown, forPublish: boolean): WorkflowStep[] {
  if (!Array.isArray(input))
    throw new AppError('workflow_invalid', 'steps must be a list.', { param: 'steps' });
  if (input.length > MAX_STEPS)
    throw new AppError('workflow_invalid', `At most ${MAX_STEPS} steps.`, { param: 'steps' });
  if (forPublish && input.length === 0)
    throw new AppError('workflow_invalid', 'A published workflow needs at least one step.', {
      param: 'steps',
    });
  return input.map((raw, i): WorkflowStep => {
    const s = raw as Partial<WorkflowStep>;
    // 1-based like the dashboard's "Step 3"; param names the field (steps[2].terms), 0-based like the input
    const bad = (detail: string, field?: string) =>
      new AppError('workflow_invalid', `Step ${i + 1}: ${detail}`, {
        param: field ? `steps[${i}].${field}` : `steps[${i}]`,
      });
    if (!s || !PRIMITIVES.includes(s.primitive as Primitive))
      throw bad(`primitive must be one of ${PRIMITIVES.join(', ')}.`, 'primitive');
    const step: WorkflowStep = { primitive: s.primitive as Primitive };
    if (s.gate_after) step.gate_after = true;
    if (s.holder !== undefined && s.holder !== null) {
      if (!HOLDER_POLICIES.includes(s.holder as HolderPolicy))
        throw bad(`holder must be one of ${HOLDER_POLICIES.join(', ')}.`, 'holder');
      if (s.holder === 'any' && i === 0)
        throw bad(
          'the first step is the holder every other step is bound to; it cannot be holder "any".',
          'holder',
        );
      // the default is not stored, so revisions published before the field existed read the same
      if (s.holder === 'any') step.holder = 'any';
    }
    if (s.routes !== undefined && s.routes !== null) {
      if (
        !Array.isArray(s.routes) ||
        s.routes.length === 0 ||
        s.routes.length > MAX_STEP_ROUTES ||
        s.routes.some((r) => typeof r !== 'string' || !/^rte_[a-z0-9_]{1,36}$/.test(r))
      )
        throw bad(`routes must be 1-${MAX_STEP_ROUTES} credential route ids from the catalog.`, 'routes');
      step.routes = [...new Set(s.routes)];
    }
    switch (step.primitive) {
      case 'identify': {
        const claims = s.claims ?? [];
        if (!Array.isArray(claims) || claims.length === 0)
          throw bad('identify needs at least one claim.', 'claims');
        for (const c of claims)
          if (!IDENTIFY_CLAIMS.includes(c as IdentifyClaim))
            throw bad(`unknown claim "${String(c)}".`, 'claims');
        step.claims = [...new Set(claims)] as IdentifyClaim[];
        break;
      }
      case 'age_verify':
        if (!Number.isInteger(s.threshold) || (s.threshold as number) < 1 || (s.threshold as number) > 120)
          throw bad('age_verify needs an integer threshold between 1 and 120.', 'threshold');
        step.threshold = s.threshold;
        break;
      case 'sign':
        if (!Number.isInteger(s.documents) || (s.documents as number) < 1 || (s.documents as number) > 10)
          throw bad('sign needs documents between 1 and 10.', 'documents');
        step.documents = s.documents;
        break;
      case 'attestation':
        if (typeof s.terms !== 'string' || s.terms.trim() === '')
          throw bad('attestation needs terms.', 'terms');
        if (forPublish && wordCount(s.terms) > MAX_ATTESTATION_WORDS)
          throw bad(`attestation terms are limited to ${MAX_ATTESTATION_WORDS} words.`, 'terms');
        step.terms = s.terms;
        break;
    }
    if (forPublish && !RUNNABLE_PRIMITIVES.has(step.primitive))
      throw bad(`the ${step.primitive} primitive is not available yet.`);
    const conditions = validateConditions(s.conditions, step, i, input.length);
    if (conditions.length > 0) step.conditions = conditions;
    return step;
  });
}
