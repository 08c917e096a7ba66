// One condition of a step in the workflow editor (ADR 0031): "when <claim> <operator> <values>, then <outcome>",
// a group of labelled fields named "Condition j of step n" for a screen reader, with its remove button. The
// fields shown follow the draft: a yes/no choice for the age claim, a skip target or a failure reason for the
// outcomes that take one.
import { For, Show } from 'solid-js';
import type {
  ConditionFailureReason,
  ConditionOperator,
  ConditionOutcome,
  Primitive,
} from '../../graphql/generated';
import { dt } from '../i18n';
import { claimsOf, type DraftCondition, FAILURE_REASONS, OPERATORS, OUTCOMES } from './condition-draft';
import { SelectField, TextField } from './Field';

/** A step the condition may skip to: its zero-based position and its label. */
export interface SkipTarget {
  k: number;
  label: string;
}

/**
 * Condition `index` (zero-based) of the step at `stage`. `set` patches this condition, `onRemove` drops it;
 * `targets` are the steps a skip may go to.
 */
export function ConditionRow(props: {
  stage: number;
  index: number;
  primitive: Primitive;
  condition: DraftCondition;
  targets: SkipTarget[];
  set: (patch: Partial<DraftCondition>) => void;
  onRemove: () => void;
}) {
  const id = (part: string) => `cond-${props.stage}-${props.index}-${part}`;
  const j = () => String(props.index + 1);
  const n = () => String(props.stage + 1);
  const c = () => props.condition;
  return (
    <fieldset class="d-condition" aria-label={dt('cond.group', { j: j(), n: n() })}>
      <SelectField
        id={id('claim')}
        label={dt('cond.when', { j: j() })}
        value={c().claim}
        onChange={(e) => props.set({ claim: e.currentTarget.value })}
      >
        <For each={claimsOf(props.primitive)}>
          {(k) => <option value={k}>{dt(`cond.claim.${k}`)}</option>}
        </For>
      </SelectField>
      <Show
        when={c().claim !== 'over'}
        fallback={
          <SelectField
            id={id('values')}
            label={dt('cond.is')}
            value={c().values}
            onChange={(e) => props.set({ operator: 'equals', values: e.currentTarget.value })}
          >
            <option value="true">{dt('cond.yes')}</option>
            <option value="false">{dt('cond.no')}</option>
          </SelectField>
        }
      >
        <SelectField
          id={id('operator')}
          label={dt('cond.test')}
          value={c().operator}
          onChange={(e) => props.set({ operator: e.currentTarget.value as ConditionOperator })}
        >
          <For each={OPERATORS}>{(o) => <option value={o}>{dt(`cond.op.${o}`)}</option>}</For>
        </SelectField>
        <TextField
          id={id('values')}
          label={dt('cond.values')}
          hint={dt(c().claim === 'nationality' ? 'cond.values.nationality' : 'cond.values.status')}
          value={c().values}
          onInput={(e) => props.set({ values: e.currentTarget.value })}
        />
      </Show>
      <SelectField
        id={id('outcome')}
        label={dt('cond.then')}
        value={c().outcome}
        onChange={(e) => props.set({ outcome: e.currentTarget.value as ConditionOutcome })}
      >
        <For each={OUTCOMES}>{(o) => <option value={o}>{dt(`cond.outcome.${o}`)}</option>}</For>
      </SelectField>
      <Show when={c().outcome === 'skip'}>
        <SelectField
          id={id('skip')}
          label={dt('cond.skipTo')}
          hint={props.targets.length ? undefined : dt('cond.noTarget')}
          value={c().skipTo}
          onChange={(e) => props.set({ skipTo: e.currentTarget.value })}
        >
          <option value="">{dt('cond.chooseStep')}</option>
          <For each={props.targets}>
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
          id={id('reason')}
          label={dt('cond.reason')}
          hint={
            <>
              {dt('cond.reasonHint')}
              <code>{c().failureReason}</code>
            </>
          }
          value={c().failureReason}
          onChange={(e) => props.set({ failureReason: e.currentTarget.value as ConditionFailureReason })}
        >
          <For each={FAILURE_REASONS}>{(r) => <option value={r}>{dt(`cond.reason.${r}`)}</option>}</For>
        </SelectField>
      </Show>
      <button
        type="button"
        class="d-danger d-condition-remove"
        aria-label={dt('cond.removeLabel', { j: j(), n: n() })}
        onClick={() => props.onRemove()}
      >
        {dt('cond.remove')}
      </button>
    </fieldset>
  );
}
