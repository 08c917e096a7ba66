// Owns workflow conditions (ADR 0031): rules on a completed step's result that the service evaluates by itself,
// in the step's completion transaction, and what the session does next. Pure: validation at publish, the
// evaluation of one step's result, and the move after a step (next, gate, skip, complete, fail). A condition
// never puts a session in awaiting_decision; only `gate_after` does.
import { AppError } from '../../common/errors';
import { PRIMITIVE_SPECS } from './primitives';
import { AGE_CONDITION_CLAIM } from './primitives/age-verify';
import {
  CONDITION_FAILURE_REASONS,
  CONDITION_OPERATORS,
  CONDITION_OUTCOMES,
  type ConditionFailureReason,
  type ConditionOperator,
  type ConditionOutcome,
  PRIMITIVES,
  type Primitive,
  type StepCondition,
} from './primitives/step';

export { AGE_CONDITION_CLAIM } from './primitives/age-verify';
export { IDENTIFY_CONDITION_CLAIMS } from './primitives/identify';
export {
  CONDITION_FAILURE_REASONS,
  CONDITION_OPERATORS,
  CONDITION_OUTCOMES,
  type ConditionFailureReason,
  type ConditionOperator,
  type ConditionOutcome,
  type StepCondition,
};

/**
 * What conditions read of a workflow step (workflow.steps.ts WorkflowStep, which validates its conditions
 * here: this module stays below it and imports nothing of it).
 */
export interface ConditionedStep {
  primitive: Primitive;
  claims?: readonly string[];
  conditions?: StepCondition[];
  gate_after?: boolean;
}
/** The document_status values a verified identify step can report (a revoked document is refused before). */
export const DOCUMENT_STATUS_VALUES = ['valid', 'not_applicable'] as const;

export const MAX_CONDITIONS_PER_STEP = 5;
export const MAX_CONDITION_VALUES = 50;
const MAX_VALUE_LENGTH = 64;

/** A condition that matched, as the audit record, the timeline and the webhooks report it. */
export interface ConditionMatch {
  /** Zero-based position of the condition in its step's list (the first that matches wins). */
  index: number;
  claim: string;
  operator: ConditionOperator;
  outcome: ConditionOutcome;
  /** skip only. */
  skip_to?: number;
  /** fail only. */
  failure_reason?: ConditionFailureReason;
}

/** The primitive's condition support (PrimitiveSpec.conditions), null when its steps take none. */
const supportOf = (step: ConditionedStep) => PRIMITIVE_SPECS[step.primitive]?.conditions ?? null;

/** The primitives whose steps take conditions. */
export const CONDITION_PRIMITIVES: readonly Primitive[] = PRIMITIVES.filter(
  (p) => PRIMITIVE_SPECS[p].conditions,
);

/**
 * Validates and normalizes the conditions of step `i` of `stepCount` steps. Errors are workflow_invalid with
 * `param` naming the GraphQL input field (workflows are edited only there), e.g. steps[1].conditions[0].skipTo;
 * the message counts steps and conditions from 1, as the dashboard shows them.
 */
export function validateConditions(
  raw: unknown,
  step: ConditionedStep,
  i: number,
  stepCount: number,
): StepCondition[] {
  if (raw === undefined || raw === null) return [];
  const base = `steps[${i}].conditions`;
  const bad = (param: string, detail: string) =>
    new AppError('workflow_invalid', `Step ${i + 1}: ${detail}`, { param });
  if (!Array.isArray(raw)) throw bad(base, 'conditions must be a list.');
  if (raw.length === 0) return [];
  const support = supportOf(step);
  if (!support)
    throw bad(
      base,
      `conditions apply to ${CONDITION_PRIMITIVES.join(' and ')} steps, not ${step.primitive}.`,
    );
  if (raw.length > MAX_CONDITIONS_PER_STEP)
    throw bad(base, `at most ${MAX_CONDITIONS_PER_STEP} conditions per step.`);
  const allowed = support.claims(step);
  return raw.map((r, j): StepCondition => {
    const c = (r ?? {}) as Partial<Record<keyof StepCondition, unknown>>;
    const p = `${base}[${j}]`;
    const n = `condition ${j + 1}`;
    if (typeof c.claim !== 'string' || !allowed.includes(c.claim))
      throw bad(
        `${p}.claim`,
        allowed.length > 0
          ? `${n} tests "${String(c.claim)}"; this step can test ${allowed.join(', ')}.`
          : `${n} tests "${String(c.claim)}"; request nationality or document_status to test it.`,
      );
    if (!CONDITION_OPERATORS.includes(c.operator as ConditionOperator))
      throw bad(`${p}.operator`, `${n}: operator must be one of ${CONDITION_OPERATORS.join(', ')}.`);
    const operator = c.operator as ConditionOperator;
    if (
      !Array.isArray(c.values) ||
      c.values.length === 0 ||
      c.values.length > MAX_CONDITION_VALUES ||
      !c.values.every((v) => typeof v === 'string' && v.trim() !== '' && v.length <= MAX_VALUE_LENGTH)
    )
      throw bad(
        `${p}.values`,
        `${n} needs 1-${MAX_CONDITION_VALUES} values of 1-${MAX_VALUE_LENGTH} characters.`,
      );
    const values = [...new Set((c.values as string[]).map((v) => v.trim()))];
    if (operator === 'equals' && values.length !== 1)
      throw bad(`${p}.values`, `${n}: equals takes exactly one value.`);
    if (c.claim === AGE_CONDITION_CLAIM) {
      if (operator !== 'equals') throw bad(`${p}.operator`, `${n}: "over" is tested with equals.`);
      if (values[0] !== 'true' && values[0] !== 'false')
        throw bad(`${p}.values`, `${n}: "over" is "true" or "false".`);
    }
    if (c.claim === 'document_status') {
      const unknown = values.find((v) => !(DOCUMENT_STATUS_VALUES as readonly string[]).includes(v));
      if (unknown !== undefined)
        throw bad(
          `${p}.values`,
          `${n}: document_status is ${DOCUMENT_STATUS_VALUES.join(' or ')}, not "${unknown}".`,
        );
    }
    if (c.claim === 'nationality') {
      const unknown = values.find((v) => !/^[A-Z]{2}$/.test(v));
      if (unknown !== undefined)
        throw bad(
          `${p}.values`,
          `${n}: nationality values are ISO 3166-1 alpha-2 codes (e.g. DE), not "${unknown}".`,
        );
    }
    if (!CONDITION_OUTCOMES.includes(c.outcome as ConditionOutcome))
      throw bad(`${p}.outcome`, `${n}: outcome must be one of ${CONDITION_OUTCOMES.join(', ')}.`);
    const out: StepCondition = { claim: c.claim, operator, values, outcome: c.outcome as ConditionOutcome };
    if (out.outcome === 'skip') {
      const to = c.skip_to;
      if (!Number.isInteger(to) || (to as number) <= i + 1 || (to as number) >= stepCount)
        throw bad(
          `${p}.skipTo`,
          i + 2 < stepCount
            ? `${n}: skip to a step after the next one, step ${i + 3} to ${stepCount} (skipTo ${i + 2}-${stepCount - 1}, zero-based).`
            : `${n}: there is no step to skip to (skipping needs a step after the next one).`,
        );
      out.skip_to = to as number;
    } else if (c.skip_to !== undefined && c.skip_to !== null)
      throw bad(`${p}.skipTo`, `${n}: a skip target belongs to the skip outcome.`);
    if (out.outcome === 'fail') {
      const reason = c.failure_reason ?? 'condition_not_met';
      if (!CONDITION_FAILURE_REASONS.includes(reason as ConditionFailureReason))
        throw bad(
          `${p}.failureReason`,
          `${n}: the failure reason must be one of ${CONDITION_FAILURE_REASONS.join(', ')}.`,
        );
      out.failure_reason = reason as ConditionFailureReason;
    } else if (c.failure_reason !== undefined && c.failure_reason !== null)
      throw bad(`${p}.failureReason`, `${n}: a failure reason belongs to the fail outcome.`);
    return out;
  });
}

/** The tested value(s) of a result: age_verify's boolean as "true"/"false"; an identify claim's value(s). */
function valuesOf(step: ConditionedStep, result: Record<string, unknown>, claim: string): string[] {
  const raw = supportOf(step)?.valueOf(result, claim);
  const list = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  return list.filter((v) => ['string', 'boolean', 'number'].includes(typeof v)).map(String);
}

/**
 * Whether one condition holds for a result. A claim with several values (nationalities) is `in` the set when
 * any of them is, `not_in` when none is, `equals` when its only value is. An absent value is `not_in` any set
 * and equals nothing, so "not in" rules fail closed.
 */
export function conditionHolds(
  step: ConditionedStep,
  c: StepCondition,
  result: Record<string, unknown>,
): boolean {
  const got = valuesOf(step, result, c.claim);
  switch (c.operator) {
    case 'equals':
      return got.length === 1 && got[0] === c.values[0];
    case 'in':
      return got.some((v) => c.values.includes(v));
    case 'not_in':
      return !got.some((v) => c.values.includes(v));
  }
}

/** The first of the step's conditions that holds for its result, or null (the workflow goes on as configured). */
export function evaluateConditions(
  step: ConditionedStep,
  result: Record<string, unknown>,
): ConditionMatch | null {
  const list = step.conditions ?? [];
  for (let index = 0; index < list.length; index++) {
    const c = list[index] as StepCondition;
    if (!conditionHolds(step, c, result)) continue;
    return {
      index,
      claim: c.claim,
      operator: c.operator,
      outcome: c.outcome,
      ...(c.outcome === 'skip' ? { skip_to: c.skip_to } : {}),
      ...(c.outcome === 'fail' ? { failure_reason: c.failure_reason ?? 'condition_not_met' } : {}),
    };
  }
  return null;
}

/**
 * What the session does after step `stage` completed. Conditions come first: fail and complete end the
 * session and override `gate_after` (there is nothing left to decide); skip changes where the session goes on,
 * and a gate after the step still waits for the business, whose continue then starts the skip target.
 */
export type StepMove =
  | { kind: 'fail'; reason: ConditionFailureReason }
  | { kind: 'complete' }
  | { kind: 'gate'; nextStage: number }
  | { kind: 'next'; nextStage: number };

export function moveAfterStep(
  steps: readonly ConditionedStep[],
  stage: number,
  match: ConditionMatch | null,
): StepMove {
  if (match?.outcome === 'fail') return { kind: 'fail', reason: match.failure_reason ?? 'condition_not_met' };
  if (match?.outcome === 'complete') return { kind: 'complete' };
  const nextStage = match?.outcome === 'skip' ? (match.skip_to as number) : stage + 1;
  if (steps[stage]?.gate_after) return { kind: 'gate', nextStage };
  return nextStage < steps.length ? { kind: 'next', nextStage } : { kind: 'complete' };
}
