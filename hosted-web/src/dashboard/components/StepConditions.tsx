// The conditions of one workflow step in the editor (ADR 0031): the list of its conditions (each a
// ConditionRow), added and removed per step, at most five. Only identify and age_verify steps have conditions;
// the server validates everything (claims, skip targets). The draft and its conversions are condition-draft.ts.
import { Index, Show } from 'solid-js';
import type { Primitive } from '../../graphql/generated';
import { dt } from '../i18n';
import { ConditionRow } from './ConditionRow';
import { blankCondition, type DraftCondition } from './condition-draft';

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
  return (
    <fieldset class="d-conditions" data-testid={`conditions-${props.stage}`}>
      <legend>{dt('cond.legend')}</legend>
      <p class="d-muted d-hint">{dt('cond.hint')}</p>
      <Index each={props.conditions}>
        {(c, j) => (
          <ConditionRow
            stage={props.stage}
            index={j}
            primitive={props.primitive}
            condition={c()}
            targets={targets()}
            set={(patch) => set(j, patch)}
            onRemove={() => props.onChange(props.conditions.filter((_, k) => k !== j))}
          />
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
