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

const CLAIMS: Record<string, string> = {
  over: 'Old enough (minimum age)',
  nationality: 'Nationality',
  document_status: 'Document status',
};
const claimsOf = (p: Primitive): string[] =>
  p === 'age_verify' ? ['over'] : ['nationality', 'document_status'];

const OPERATORS: { value: ConditionOperator; label: string }[] = [
  { value: 'equals', label: 'is' },
  { value: 'in', label: 'is one of' },
  { value: 'not_in', label: 'is not one of' },
];
const OUTCOMES: { value: ConditionOutcome; label: string }[] = [
  { value: 'fail', label: 'End the session as failed' },
  { value: 'skip', label: 'Skip to a later step' },
  { value: 'complete', label: 'Complete the session now' },
];
export const FAILURE_REASONS: { value: ConditionFailureReason; label: string }[] = [
  { value: 'condition_not_met', label: 'Condition not met' },
  { value: 'age_requirement_not_met', label: 'Age requirement not met' },
  { value: 'nationality_not_accepted', label: 'Nationality not accepted' },
  { value: 'document_not_accepted', label: 'Document not accepted' },
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
  const what = c.claim === 'over' ? 'old enough' : (CLAIMS[c.claim] ?? c.claim).toLowerCase();
  const values = c.claim === 'over' ? (c.values[0] === 'true' ? 'yes' : 'no') : c.values.join(', ');
  const op = OPERATORS.find((o) => o.value === c.operator)?.label ?? c.operator;
  const then =
    c.outcome === 'fail'
      ? `end as failed (${c.failureReason ?? 'condition_not_met'})`
      : c.outcome === 'skip'
        ? `skip to step ${(c.skipTo ?? 0) + 1}`
        : 'complete the session';
  return `If ${what} ${op} ${values}: ${then}`;
}

/** What a matched condition decided, from the audit record's `condition` (which never holds the value). */
export function matchSummary(c: Record<string, unknown>): string {
  const then =
    c.outcome === 'fail'
      ? `the session ended as failed (${String(c.failure_reason ?? 'condition_not_met')})`
      : c.outcome === 'skip'
        ? `the session skipped to step ${Number(c.skip_to) + 1}`
        : 'the session completed';
  const what = c.claim === 'over' ? 'old enough' : (CLAIMS[String(c.claim)] ?? String(c.claim)).toLowerCase();
  return `Condition ${Number(c.index) + 1} on ${what} matched: ${then}.`;
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
      <legend>Conditions on the result</legend>
      <p class="d-muted d-hint">
        Checked as soon as the step is verified; the first that holds decides. A condition never waits for
        you.
      </p>
      <Index each={props.conditions}>
        {(c, j) => (
          <fieldset class="d-condition" aria-label={`Condition ${j + 1} of step ${props.stage + 1}`}>
            <SelectField
              id={id(j, 'claim')}
              label={`Condition ${j + 1}: when`}
              value={c().claim}
              onChange={(e) => set(j, { claim: e.currentTarget.value })}
            >
              <For each={claimsOf(props.primitive)}>{(k) => <option value={k}>{CLAIMS[k]}</option>}</For>
            </SelectField>
            <Show
              when={c().claim !== 'over'}
              fallback={
                <SelectField
                  id={id(j, 'values')}
                  label="is"
                  value={c().values}
                  onChange={(e) => set(j, { operator: 'equals', values: e.currentTarget.value })}
                >
                  <option value="true">yes</option>
                  <option value="false">no</option>
                </SelectField>
              }
            >
              <SelectField
                id={id(j, 'operator')}
                label="Test"
                value={c().operator}
                onChange={(e) => set(j, { operator: e.currentTarget.value as ConditionOperator })}
              >
                <For each={OPERATORS}>{(o) => <option value={o.value}>{o.label}</option>}</For>
              </SelectField>
              <TextField
                id={id(j, 'values')}
                label="Values (comma separated)"
                hint={
                  c().claim === 'nationality'
                    ? 'Country codes, e.g. DE, AT'
                    : 'valid, or not_applicable (a document without a status list)'
                }
                value={c().values}
                onInput={(e) => set(j, { values: e.currentTarget.value })}
              />
            </Show>
            <SelectField
              id={id(j, 'outcome')}
              label="Then"
              value={c().outcome}
              onChange={(e) => set(j, { outcome: e.currentTarget.value as ConditionOutcome })}
            >
              <For each={OUTCOMES}>{(o) => <option value={o.value}>{o.label}</option>}</For>
            </SelectField>
            <Show when={c().outcome === 'skip'}>
              <SelectField
                id={id(j, 'skip')}
                label="Skip to"
                hint={targets().length ? undefined : 'Add a step after the next one to skip to.'}
                value={c().skipTo}
                onChange={(e) => set(j, { skipTo: e.currentTarget.value })}
              >
                <option value="">Choose a step</option>
                <For each={targets()}>
                  {(t) => (
                    <option value={String(t.k)}>
                      Step {t.k + 1}: {t.label}
                    </option>
                  )}
                </For>
              </SelectField>
            </Show>
            <Show when={c().outcome === 'fail'}>
              <SelectField
                id={id(j, 'reason')}
                label="Failure reason"
                hint={
                  <>
                    The session's failure_reason code: <code>{c().failureReason}</code>
                  </>
                }
                value={c().failureReason}
                onChange={(e) => set(j, { failureReason: e.currentTarget.value as ConditionFailureReason })}
              >
                <For each={FAILURE_REASONS}>{(r) => <option value={r.value}>{r.label}</option>}</For>
              </SelectField>
            </Show>
            <button
              type="button"
              class="d-danger d-condition-remove"
              aria-label={`Remove condition ${j + 1} of step ${props.stage + 1}`}
              onClick={() => props.onChange(props.conditions.filter((_, k) => k !== j))}
            >
              Remove condition
            </button>
          </fieldset>
        )}
      </Index>
      <Show when={props.conditions.length < 5}>
        <button
          type="button"
          aria-label={`Add condition to step ${props.stage + 1}`}
          onClick={() => props.onChange([...props.conditions, blankCondition(props.primitive)])}
        >
          Add condition
        </button>
      </Show>
    </fieldset>
  );
}
