// A secret shown once (a new API key, a webhook signing secret): read-only, selected on focus, until the
// user says it is stored. Nothing keeps it after that; the server stores only a hash or an encrypted copy.
import type { JSX } from 'solid-js';

export function SecretOnce(props: {
  id: string;
  label: string;
  value: string;
  children: JSX.Element;
  onDone: () => void;
}) {
  return (
    <div class="d-card d-secret" role="status">
      <p>{props.children}</p>
      <label for={props.id}>{props.label}</label>
      <input id={props.id} readonly value={props.value} onFocus={(e) => e.currentTarget.select()} />
      <button type="button" onClick={() => props.onDone()}>
        I have stored it
      </button>
    </div>
  );
}
