// Unit tests of workflow conditions (pure): validation at publish, evaluation of a result, the move after a step.
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../common/errors';
import { evaluateConditions, moveAfterStep, type StepCondition } from './conditions';
import { validateSteps, type WorkflowStep } from './workflow.steps';

const age = (conditions: unknown[], extra: Partial<WorkflowStep> = {}) => ({
  primitive: 'age_verify',
  threshold: 18,
  conditions,
  ...extra,
});
const identify = (conditions: unknown[]) => ({
  primitive: 'identify',
  claims: ['given_name', 'nationality', 'document_status'],
  conditions,
});
const attest = { primitive: 'attestation', terms: 'I agree.' };

function refusal(steps: unknown[]): { code: string; param?: string; message: string } {
  try {
    validateSteps(steps, true);
  } catch (e) {
    if (isAppError(e)) return { code: e.code, param: e.param, message: e.message };
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('validateSteps with conditions', () => {
  it('keeps valid conditions, normalized, and drops an empty list', () => {
    const steps = validateSteps(
      [
        age([{ claim: 'over', operator: 'equals', values: ['false'], outcome: 'fail' }]),
        identify([
          { claim: 'nationality', operator: 'in', values: ['DE', ' AT', 'DE'], outcome: 'skip', skip_to: 3 },
        ]),
        { ...attest, conditions: [] },
        attest,
      ],
      true,
    );
    expect(steps[0]?.conditions).toEqual([
      {
        claim: 'over',
        operator: 'equals',
        values: ['false'],
        outcome: 'fail',
        failure_reason: 'condition_not_met',
      },
    ]);
    expect(steps[1]?.conditions).toEqual([
      { claim: 'nationality', operator: 'in', values: ['DE', 'AT'], outcome: 'skip', skip_to: 3 },
    ]);
    expect(steps[2]).not.toHaveProperty('conditions');
  });

  it.each([
    [
      'a claim the primitive does not have',
      [age([{ claim: 'nationality', operator: 'equals', values: ['DE'], outcome: 'fail' }])],
      'steps[0].conditions[0].claim',
    ],
    [
      'a claim the identify step does not request',
      [
        {
          primitive: 'identify',
          claims: ['given_name'],
          conditions: [{ claim: 'nationality', operator: 'in', values: ['DE'], outcome: 'fail' }],
        },
      ],
      'steps[0].conditions[0].claim',
    ],
    [
      'a skip target that is not later than the next step',
      [age([{ claim: 'over', operator: 'equals', values: ['true'], outcome: 'skip', skip_to: 1 }]), attest],
      'steps[0].conditions[0].skipTo',
    ],
    [
      'a skip target past the last step',
      [
        age([{ claim: 'over', operator: 'equals', values: ['true'], outcome: 'skip', skip_to: 3 }]),
        attest,
        attest,
      ],
      'steps[0].conditions[0].skipTo',
    ],
    [
      'an unknown outcome',
      [age([{ claim: 'over', operator: 'equals', values: ['true'], outcome: 'pause' }])],
      'steps[0].conditions[0].outcome',
    ],
    [
      'a failure reason outside the fixed list',
      [
        age([
          {
            claim: 'over',
            operator: 'equals',
            values: ['false'],
            outcome: 'fail',
            failure_reason: 'too_young',
          },
        ]),
      ],
      'steps[0].conditions[0].failureReason',
    ],
    [
      '"over" that is not true or false',
      [age([{ claim: 'over', operator: 'equals', values: ['yes'], outcome: 'fail' }])],
      'steps[0].conditions[0].values',
    ],
    [
      'equals with two values',
      [identify([{ claim: 'nationality', operator: 'equals', values: ['DE', 'AT'], outcome: 'fail' }])],
      'steps[0].conditions[0].values',
    ],
    [
      'a nationality that is not a country code',
      [identify([{ claim: 'nationality', operator: 'in', values: ['Germany'], outcome: 'fail' }])],
      'steps[0].conditions[0].values',
    ],
    [
      'an unknown document status',
      [identify([{ claim: 'document_status', operator: 'equals', values: ['revoked'], outcome: 'fail' }])],
      'steps[0].conditions[0].values',
    ],
    [
      'conditions on an attestation step',
      [{ ...attest, conditions: [{ claim: 'over', operator: 'equals', values: ['true'], outcome: 'fail' }] }],
      'steps[0].conditions',
    ],
  ])('refuses %s with workflow_invalid naming the field', (_what, steps, param) => {
    const r = refusal(steps);
    expect(r.code).toBe('workflow_invalid');
    expect(r.param).toBe(param);
  });
});

describe('evaluateConditions', () => {
  const over = (value: 'true' | 'false', c: Partial<StepCondition> = {}) =>
    validateSteps(
      [age([{ claim: 'over', operator: 'equals', values: [value], outcome: 'fail', ...c }])],
      true,
    )[0] as WorkflowStep;

  it('matches age over false for a minor and not for an adult', () => {
    const step = over('false', { failure_reason: 'age_requirement_not_met' });
    expect(evaluateConditions(step, { over: false, threshold: 18 })).toEqual({
      index: 0,
      claim: 'over',
      operator: 'equals',
      outcome: 'fail',
      failure_reason: 'age_requirement_not_met',
    });
    expect(evaluateConditions(step, { over: true, threshold: 18 })).toBeNull();
  });

  it('takes the first condition that holds; in, not_in and several values', () => {
    const [step] = validateSteps(
      [
        identify([
          { claim: 'nationality', operator: 'not_in', values: ['DE', 'AT'], outcome: 'fail' },
          { claim: 'nationality', operator: 'in', values: ['AT'], outcome: 'complete' },
          { claim: 'document_status', operator: 'equals', values: ['not_applicable'], outcome: 'complete' },
        ]),
      ],
      true,
    ) as [WorkflowStep];
    expect(evaluateConditions(step, { claims: { nationality: 'FR' } })?.index).toBe(0);
    expect(evaluateConditions(step, { claims: { nationality: 'AT' } })?.index).toBe(1);
    expect(evaluateConditions(step, { claims: { nationality: ['FR', 'AT'] } })?.index).toBe(1);
    expect(
      evaluateConditions(step, { claims: { nationality: 'DE', document_status: 'not_applicable' } })?.index,
    ).toBe(2);
    expect(evaluateConditions(step, { claims: { nationality: 'DE', document_status: 'valid' } })).toBeNull();
    // an absent value is not in any set: a "not in" rule fails closed
    expect(evaluateConditions(step, { claims: {} })?.outcome).toBe('fail');
  });
});

describe('moveAfterStep', () => {
  const steps = [
    { primitive: 'age_verify', threshold: 18 },
    { primitive: 'attestation', terms: 'a' },
    { primitive: 'attestation', terms: 'b' },
  ] as WorkflowStep[];
  const gated = steps.map((s, i) => (i === 0 ? { ...s, gate_after: true } : s));
  const match = (outcome: 'fail' | 'skip' | 'complete') => ({
    index: 0,
    claim: 'over',
    operator: 'equals' as const,
    outcome,
    ...(outcome === 'skip' ? { skip_to: 2 } : {}),
  });

  it('goes to the next step, the gate, or the end without a match', () => {
    expect(moveAfterStep(steps, 0, null)).toEqual({ kind: 'next', nextStage: 1 });
    expect(moveAfterStep(gated, 0, null)).toEqual({ kind: 'gate', nextStage: 1 });
    expect(moveAfterStep(steps, 2, null)).toEqual({ kind: 'complete' });
  });

  it('fail and complete override the gate; skip keeps it and changes where the session goes on', () => {
    expect(moveAfterStep(gated, 0, match('fail'))).toEqual({ kind: 'fail', reason: 'condition_not_met' });
    expect(moveAfterStep(gated, 0, match('complete'))).toEqual({ kind: 'complete' });
    expect(moveAfterStep(steps, 0, match('skip'))).toEqual({ kind: 'next', nextStage: 2 });
    expect(moveAfterStep(gated, 0, match('skip'))).toEqual({ kind: 'gate', nextStage: 2 });
  });
});
