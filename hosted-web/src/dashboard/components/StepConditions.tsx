// The conditions of one workflow step in the editor (ADR 0031): "when <claim> <operator> <values>, then <outcome>",
// added, edited and removed per step; and the plain-words summary the published revisions show. Only
// identify and age_verify steps have conditions; the server validates everything (claims, skip targets).
import { For, Index, Show } from 'solid-js';
import type {
  ConditionFailureReason,
  ConditionOperator,
  ConditionOutcome,
  Primitive,
  StepConditionInput,
} from '../../graphql/generated';
import { dt } from '../i18n';
import { SelectField, TextField } from './Field';

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
const claimsOf = (p: Primitive): ConditionClaim[] =>
  p === 'age_verify' ? ['over'] : ['nationality', 'document_status'];

// the choices, named in the dashboard's language (messages/workflows.ts, cond.*)
const OPERATORS: ConditionOperator[] = ['equals', 'in', 'not_in'];
const OUTCOMES: ConditionOutcome[] = ['fail', 'skip', 'complete'];
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

/**
 * The editor of one step's conditions. `stage` is the step's zero-based position and `stepLabels` every
 * step's label, for the skip targets (only steps after the next one).
 */
export function StepConditions(props: {
  stage: number;
  primitive: Primitive;
  conditions: DraftCondition[];
  stepLabels: string[];
  onChange: (next: DraftCondition[]) => void;
}) {
  const set = (j: number, patch: Partial<DraftCondition>) =>
    props.onChange(props.conditions.map((c, k) => (k === j ? { ...c, ...patch } : c)));
  const targets = () =>
    props.stepLabels.map((label, k) => ({ k, label })).filter(({ k }) => k > props.stage + 1);
  const id = (j: number, part: string) => `cond-${props.stage}-${j}-${part}`;
  return (
    <fieldset class="d-conditions" data-testid={`conditions-${props.stage}`}>
      <legend>{dt('cond.legend')}</legend>
      <p class="d-muted d-hint">{dt('cond.hint')}</p>
      <Index each={props.conditions}>
        {(c, j) => (
          <fieldset
            class="d-condition"
            aria-label={dt('cond.group', { j: String(j + 1), n: String(props.stage + 1) })}
          >
            <SelectField
              id={id(j, 'claim')}
              label={dt('cond.when', { j: String(j + 1) })}
              value={c().claim}
              onChange={(e) => set(j, { claim: e.currentTarget.value })}
            >
              <For each={claimsOf(props.primitive)}>
                {(k) => <option value={k}>{dt(`cond.claim.${k}`)}</option>}
              </For>
            </SelectField>
            <Show
              when={c().claim !== 'over'}
              fallback={
                <SelectField
                  id={id(j, 'values')}
                  label={dt('cond.is')}
                  value={c().values}
                  onChange={(e) => set(j, { operator: 'equals', values: e.currentTarget.value })}
                >
                  <option value="true">{dt('cond.yes')}</option>
                  <option value="false">{dt('cond.no')}</option>
                </SelectField>
              }
            >
              <SelectField
                id={id(j, 'operator')}
                label={dt('cond.test')}
                value={c().operator}
                onChange={(e) => set(j, { operator: e.currentTarget.value as ConditionOperator })}
              >
                <For each={OPERATORS}>{(o) => <option value={o}>{dt(`cond.op.${o}`)}</option>}</For>
              </SelectField>
              <TextField
                id={id(j, 'values')}
                label={dt('cond.values')}
                hint={dt(c().claim === 'nationality' ? 'cond.values.nationality' : 'cond.values.status')}
                value={c().values}
                onInput={(e) => set(j, { values: e.currentTarget.value })}
              />
            </Show>
            <SelectField
              id={id(j, 'outcome')}
              label={dt('cond.then')}
              value={c().outcome}
              onChange={(e) => set(j, { outcome: e.currentTarget.value as ConditionOutcome })}
            >
              <For each={OUTCOMES}>{(o) => <option value={o}>{dt(`cond.outcome.${o}`)}</option>}</For>
            </SelectField>
            <Show when={c().outcome === 'skip'}>
              <SelectField
                id={id(j, 'skip')}
                label={dt('cond.skipTo')}
                hint={targets().length ? undefined : dt('cond.noTarget')}
                value={c().skipTo}
                onChange={(e) => set(j, { skipTo: e.currentTarget.value })}
              >
                <option value="">{dt('cond.chooseStep')}</option>
                <For each={targets()}>
                  {(t) => (
                    <option value={String(t.k)}>
                      {dt('wf.stepTitle', { n: String(t.k + 1), label: t.label })}
                    </option>
                  )}
                </For>
              </SelectField>
            </Show>
            <Show when={c().outcome === 'fail'}>
              <SelectField
                id={id(j, 'reason')}
                label={dt('cond.reason')}
                hint={
                  <>
                    {dt('cond.reasonHint')}
                    <code>{c().failureReason}</code>
                  </>
                }
                value={c().failureReason}
                onChange={(e) => set(j, { failureReason: e.currentTarget.value as ConditionFailureReason })}
              >
                <For each={FAILURE_REASONS}>{(r) => <option value={r}>{dt(`cond.reason.${r}`)}</option>}</For>
              </SelectField>
            </Show>
            <button
              type="button"
              class="d-danger d-condition-remove"
              aria-label={dt('cond.removeLabel', { j: String(j + 1), n: String(props.stage + 1) })}
              onClick={() => props.onChange(props.conditions.filter((_, k) => k !== j))}
            >
              {dt('cond.remove')}
            </button>
          </fieldset>
        )}
      </Index>
      <Show when={props.conditions.length < 5}>
        <button
          type="button"
          aria-label={dt('cond.addLabel', { n: String(props.stage + 1) })}
          onClick={() => props.onChange([...props.conditions, blankCondition(props.primitive)])}
        >
          {dt('cond.add')}
        </button>
      </Show>
    </fieldset>
  );
}
