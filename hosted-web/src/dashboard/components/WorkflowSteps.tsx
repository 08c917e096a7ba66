// The steps of a workflow draft (screens/WorkflowDetail.tsx): one card per step (WorkflowStep.tsx), and a
// new step of a chosen primitive added at the end. Every edit hands the whole new list to `onChange`.
import { createSignal, For, Index, Show } from 'solid-js';
import type { Primitive } from '../../graphql/generated';
import { dt } from '../i18n';
import { blank, type DraftStep, primitiveLabel } from './draft-step';
import { SelectField } from './Field';
import { WorkflowStep } from './WorkflowStep';

/** The step picker's order: every primitive of the schema (ADR 0054), so a new one is a compile error here. */
const ORDER = { identify: 0, age_verify: 1, sign: 2, attestation: 3 } satisfies Record<Primitive, number>;
const PRIMITIVES = (Object.keys(ORDER) as Primitive[]).sort((a, b) => ORDER[a] - ORDER[b]);

export function WorkflowSteps(props: {
  steps: DraftStep[];
  /** the server's refusal of one step's field (field-error.ts stepErrorOf), or null */
  invalid: { step: number; field: string; text: string } | null;
  onChange: (next: DraftStep[]) => void;
}) {
  const [adding, setAdding] = createSignal<Primitive>('identify');
  const update = (i: number, patch: Partial<DraftStep>) =>
    props.onChange(props.steps.map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...props.steps];
    const [s] = next.splice(i, 1);
    next.splice(i + by, 0, s as DraftStep);
    props.onChange(next);
  };
  const fieldError = (i: number, field: string) => {
    const v = props.invalid;
    return v && v.step === i && v.field === field ? v.text : null;
  };
  return (
    <>
      <h2>{dt('wf.draftSteps')}</h2>
      <Show when={!props.steps.length}>
        <p class="d-muted">{dt('wf.noSteps')}</p>
      </Show>
      <ol class="d-steps">
        <Index each={props.steps}>
          {(s, i) => (
            <WorkflowStep
              index={i}
              step={s()}
              count={props.steps.length}
              stepLabels={props.steps.map((x) => primitiveLabel(x.primitive))}
              invalid={props.invalid?.step === i}
              fieldError={(field) => fieldError(i, field)}
              update={(patch) => update(i, patch)}
              move={(by) => move(i, by)}
              remove={() => props.onChange(props.steps.filter((_, j) => j !== i))}
            />
          )}
        </Index>
      </ol>
      <div class="d-form">
        <SelectField
          id="add-primitive"
          label={dt('wf.newStep')}
          value={adding()}
          onChange={(e) => setAdding(e.currentTarget.value as Primitive)}
        >
          <For each={PRIMITIVES}>{(p) => <option value={p}>{dt(`wf.option.${p}`)}</option>}</For>
        </SelectField>
        <button type="button" onClick={() => props.onChange([...props.steps, blank(adding())])}>
          {dt('wf.addStep')}
        </button>
      </div>
    </>
  );
}
