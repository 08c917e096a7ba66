// A labelled form control: the label is tied to the control by id, and an optional hint or error is tied to
// it by aria-describedby (the error also sets aria-invalid), so a screen reader reads them with the field.
// The controls take their attributes one by one, not as a spread: a spread would pull Solid's `spread`
// helper into the runtime chunk the signer page shares with the dashboard (size:check budget).
import { type JSX, Show } from 'solid-js';

interface FieldProps {
  id: string;
  label: JSX.Element;
  hint?: JSX.Element;
  error?: string | null;
}

const describedBy = (p: FieldProps): string | undefined =>
  [p.hint ? `${p.id}-hint` : '', p.error ? `${p.id}-error` : ''].filter(Boolean).join(' ') || undefined;

/** The label, then the control (rendered by `children` with the describedby ids), then hint and error. */
export function Field(
  props: FieldProps & { children: (describedby: () => string | undefined) => JSX.Element },
) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      {props.children(() => describedBy(props))}
      <Show when={props.hint}>
        <p id={`${props.id}-hint`} class="d-muted d-hint">
          {props.hint}
        </p>
      </Show>
      <Show when={props.error}>
        <p id={`${props.id}-error`} class="d-field-error">
          {props.error}
        </p>
      </Show>
    </>
  );
}

export function TextField(
  props: FieldProps & {
    value: string;
    onInput: JSX.EventHandler<HTMLInputElement, InputEvent>;
    type?: 'text' | 'email' | 'url' | 'number';
    required?: boolean;
    maxlength?: string;
    min?: string;
    max?: string;
    inputmode?: 'numeric' | 'text';
    autocomplete?: string;
  },
) {
  return (
    <Field id={props.id} label={props.label} hint={props.hint} error={props.error}>
      {(d) => (
        <input
          id={props.id}
          aria-describedby={d()}
          aria-invalid={props.error ? true : undefined}
          type={props.type ?? 'text'}
          required={props.required}
          maxlength={props.maxlength}
          min={props.min}
          max={props.max}
          inputmode={props.inputmode}
          autocomplete={props.autocomplete}
          value={props.value}
          onInput={props.onInput}
        />
      )}
    </Field>
  );
}

export function SelectField(
  props: FieldProps & {
    value: string;
    onChange: JSX.EventHandler<HTMLSelectElement, Event>;
    children: JSX.Element;
  },
) {
  return (
    <Field id={props.id} label={props.label} hint={props.hint} error={props.error}>
      {(d) => (
        <select
          id={props.id}
          aria-describedby={d()}
          aria-invalid={props.error ? true : undefined}
          value={props.value}
          onChange={props.onChange}
        >
          {props.children}
        </select>
      )}
    </Field>
  );
}
