// One step of a workflow draft in the editor (screens/Workflows.tsx): its primitive's settings (claims,
// minimum age, documents, terms), its routes and conditions, the gate and who may do it, and moving or
// removing it. The server's refusal of one of its fields arrives as `fieldError(field)`.
import { Show } from 'solid-js';
import { dt } from '../i18n';
import { ClaimsPicker } from './ClaimsPicker';
import { hasConditions } from './condition-draft';
import { type DraftStep, primitiveLabel, wordCount } from './draft-step';
import { Field, TextField } from './Field';
import { StepConditions } from './StepConditions';
import { StepRoutes } from './StepRoutes';

/** The spec's limit for attestation terms; the server enforces it, the editor warns while typing. */
const TERMS_MAX_WORDS = 1000;

export function WorkflowStep(props: {
  index: number;
  step: DraftStep;
  count: number;
  stepLabels: string[];
  invalid: boolean;
  fieldError: (field: string) => string | null;
  update: (patch: Partial<DraftStep>) => void;
  move: (by: -1 | 1) => void;
  remove: () => void;
}) {
  const i = () => props.index;
  const n = () => String(props.index + 1);
  const s = () => props.step;
  const words = () => wordCount(s().terms);
  return (
    <li class="d-card d-step" classList={{ 'd-step-invalid': props.invalid }} data-testid={`step-${i() + 1}`}>
      <h3>{dt('wf.stepTitle', { n: n(), label: primitiveLabel(s().primitive) })}</h3>
      <Show when={s().primitive === 'identify'}>
        <ClaimsPicker
          id={`claims-${i()}`}
          error={props.fieldError('claims')}
          value={s().claims}
          onChange={(claims) => props.update({ claims })}
        />
      </Show>
      <Show when={s().primitive === 'age_verify'}>
        <TextField
          id={`threshold-${i()}`}
          error={props.fieldError('threshold')}
          label={dt('wf.minAge')}
          type="number"
          min="1"
          max="150"
          inputmode="numeric"
          value={s().threshold}
          onInput={(e) => props.update({ threshold: e.currentTarget.value })}
        />
      </Show>
      <Show when={s().primitive === 'sign'}>
        <TextField
          id={`documents-${i()}`}
          error={props.fieldError('documents')}
          label={dt('wf.documents')}
          type="number"
          min="1"
          inputmode="numeric"
          value={s().documents}
          onInput={(e) => props.update({ documents: e.currentTarget.value })}
        />
      </Show>
      <Show when={s().primitive === 'attestation'}>
        <Field id={`terms-${i()}`} label={dt('wf.terms')} error={props.fieldError('terms')}>
          {(d) => (
            <textarea
              id={`terms-${i()}`}
              rows="6"
              aria-describedby={[`terms-count-${i()}`, d()].filter(Boolean).join(' ')}
              aria-invalid={props.fieldError('terms') ? true : undefined}
              value={s().terms}
              onInput={(e) => props.update({ terms: e.currentTarget.value })}
            />
          )}
        </Field>
        <p
          id={`terms-count-${i()}`}
          class={words() > TERMS_MAX_WORDS ? 'd-warn' : 'd-muted'}
          aria-live="polite"
          data-testid={`terms-count-${i()}`}
        >
          {dt('wf.termsCount', { n: String(words()), max: String(TERMS_MAX_WORDS) })}
          {words() > TERMS_MAX_WORDS ? dt('wf.termsTooLong', { n: String(words() - TERMS_MAX_WORDS) }) : ''}
        </p>
      </Show>
      <StepRoutes
        id={`routes-${i()}`}
        primitive={s().primitive}
        value={s().routes}
        error={props.fieldError('routes')}
        onChange={(routes) => props.update({ routes })}
      />
      <Show when={hasConditions(s().primitive)}>
        <StepConditions
          stage={i()}
          primitive={s().primitive}
          conditions={s().conditions}
          stepLabels={props.stepLabels}
          onChange={(conditions) => props.update({ conditions })}
        />
      </Show>
      <label class="d-check">
        <input
          type="checkbox"
          checked={s().gateAfter}
          onChange={(e) => props.update({ gateAfter: e.currentTarget.checked })}
        />
        {dt('wf.gate')}
      </label>
      <Show when={i() > 0}>
        <label class="d-check">
          <input
            type="checkbox"
            checked={s().anyHolder}
            data-testid={`any-holder-${i()}`}
            onChange={(e) => props.update({ anyHolder: e.currentTarget.checked })}
          />
          {dt('wf.anyHolder')}
        </label>
      </Show>
      <div class="d-step-actions">
        <button
          type="button"
          disabled={i() === 0}
          aria-label={dt('wf.moveUpLabel', { n: n() })}
          onClick={() => props.move(-1)}
        >
          {dt('wf.moveUp')}
        </button>
        <button
          type="button"
          disabled={i() === props.count - 1}
          aria-label={dt('wf.moveDownLabel', { n: n() })}
          onClick={() => props.move(1)}
        >
          {dt('wf.moveDown')}
        </button>
        <button
          type="button"
          class="d-danger"
          aria-label={dt('wf.removeLabel', { n: n() })}
          onClick={() => props.remove()}
        >
          {dt('wf.remove')}
        </button>
      </div>
    </li>
  );
}
