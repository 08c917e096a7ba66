// What every screen does around a button or a form: clear the last message, run the action, then show
// either its notice (role=status) or the error with the copy of its code (ErrorNote, errors.ts).
import { createSignal, Show } from 'solid-js';
import { ErrorNote } from '../Screen';

export interface Action {
  error: () => unknown;
  notice: () => string;
  busy: () => boolean;
  /** Runs f; a string it answers becomes the notice. False when it failed (the error is shown). */
  run: (f: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
}

export function createAction(): Action {
  const [error, setError] = createSignal<unknown>(null);
  const [notice, setNotice] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const clear = () => {
    setError(null);
    setNotice('');
  };
  const run = async (f: () => Promise<unknown>) => {
    clear();
    setBusy(true);
    try {
      const answer = await f();
      setNotice(typeof answer === 'string' ? answer : '');
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { error, notice, busy, run, clear };
}

/** The outcome of the screen's last action: its error (role=alert) or its notice (role=status). */
export function ActionStatus(props: { action: Action; words?: string | null }) {
  return (
    <>
      <Show when={props.action.error()}>{(e) => <ErrorNote error={e()} words={props.words} />}</Show>
      <Show when={props.action.notice()}>
        <p role="status" class="d-ok">
          {props.action.notice()}
        </p>
      </Show>
    </>
  );
}
