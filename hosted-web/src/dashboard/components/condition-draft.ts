// A step's conditions as the workflow editor holds them (ADR 0031): the draft of one condition (values stay the
// typed text until saved), its conversion from the server's condition and back to its input, the choices the
// editor offers per primitive, and the plain-words summary the published revisions show. The editor itself is
// StepConditions.tsx (the list) and ConditionRow.tsx (one condition).
import type {
  ConditionFailureReason,
  ConditionOperator,
  ConditionOutcome,
  Primitive,
  StepConditionInput,
} from '../../graphql/generated';
import { dt } from '../i18n';

/** A condition as edited: values stay the typed text until saved. */
export interface DraftCondition {
  claim: string;
  operator: ConditionOperator;
  values: string;
  outcome: ConditionOutcome;
  skipTo: string;
  failureReason: ConditionFailureReason;
}

interface StepConditionShape {
  claim: string;
  operator: ConditionOperator;
  values: string[];
  outcome: ConditionOutcome;
  skipTo?: number | null;
  failureReason?: ConditionFailureReason | null;
}

export const hasConditions = (p: Primitive): boolean => p === 'identify' || p === 'age_verify';

type ConditionClaim = 'over' | 'nationality' | 'document_status';
const CONDITION_CLAIMS: readonly string[] = [
  'over',
  'nationality',
  'document_status',
] satisfies ConditionClaim[];
const isConditionClaim = (c: string): c is ConditionClaim => CONDITION_CLAIMS.includes(c);
export const claimsOf = (p: Primitive): ConditionClaim[] =>
  p === 'age_verify' ? ['over'] : ['nationality', 'document_status'];

// the choices, named in the dashboard's language (messages/workflows.ts, cond.*)
export const OPERATORS: ConditionOperator[] = ['equals', 'in', 'not_in'];
export const OUTCOMES: ConditionOutcome[] = ['fail', 'skip', 'complete'];
export const FAILURE_REASONS: ConditionFailureReason[] = [
  'condition_not_met',
  'age_requirement_not_met',
  'nationality_not_accepted',
  'document_not_accepted',
];

export const blankCondition = (p: Primitive): DraftCondition =>
  p === 'age_verify'
    ? {
        claim: 'over',
        operator: 'equals',
        values: 'false',
        outcome: 'fail',
        skipTo: '',
        failureReason: 'age_requirement_not_met',
      }
    : {
        claim: 'nationality',
        operator: 'not_in',
        values: '',
        outcome: 'fail',
        skipTo: '',
        failureReason: 'nationality_not_accepted',
      };

export const toDraftCondition = (c: StepConditionShape): DraftCondition => ({
  claim: c.claim,
  operator: c.operator,
  values: c.values.join(', '),
  outcome: c.outcome,
  skipTo: c.skipTo == null ? '' : String(c.skipTo),
  failureReason: c.failureReason ?? 'condition_not_met',
});

/** Only the fields of the outcome go to the server; values are split on commas. */
export const toConditionInput = (c: DraftCondition): StepConditionInput => ({
  claim: c.claim,
  operator: c.operator,
  values: c.values
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
  outcome: c.outcome,
  ...(c.outcome === 'skip' ? { skipTo: Number.parseInt(c.skipTo, 10) } : {}),
  ...(c.outcome === 'fail' ? { failureReason: c.failureReason } : {}),
});

/** "If old enough is no: end as failed (age_requirement_not_met)", for the revisions list. */
export function conditionSummary(c: StepConditionShape): string {
  const what = isConditionClaim(c.claim) ? dt(`cond.sum.${c.claim}`) : c.claim;
  const values =
    c.claim === 'over' ? dt(c.values[0] === 'true' ? 'cond.yes' : 'cond.no') : c.values.join(', ');
  const then =
    c.outcome === 'fail'
      ? dt('cond.sum.fail', { reason: c.failureReason ?? 'condition_not_met' })
      : c.outcome === 'skip'
        ? dt('cond.sum.skip', { n: String((c.skipTo ?? 0) + 1) })
        : dt('cond.sum.complete');
  return dt('cond.sum', { what, op: dt(`cond.op.${c.operator}`), values, then });
}
