// A button for an action that cannot be undone (revoking a key or an invitation): the first press asks in
// words, next to the button, and moves focus to the confirmation; Cancel (or Escape) puts focus back.
import { createSignal, type JSX, Show } from 'solid-js';

// ids for the question text (not createUniqueId: it would grow the runtime chunk the signer page shares)
let next = 0;

export function ConfirmButton(props: {
  children: JSX.Element;
  /** accessible name of the first button, when its text alone is ambiguous in a list ("Revoke key CI key") */
  label?: string;
  /** the question, e.g. "Revoke key CI key? Requests with it fail at once." */
  question: string;
  /** text of the confirming button, e.g. "Yes, revoke" */
  confirm: string;
  onConfirm: () => unknown;
}) {
  const [asking, setAsking] = createSignal(false);
  let first: HTMLButtonElement | undefined;
  const question = `d-confirm-${++next}`;
  const cancel = () => {
    setAsking(false);
    first?.focus();
  };
  const onEscape = (e: KeyboardEvent) => e.key === 'Escape' && cancel();
  return (
    <Show
      when={asking()}
      fallback={
        <button
          type="button"
          class="d-danger"
          aria-label={props.label}
          ref={first}
          onClick={() => setAsking(true)}
        >
          {props.children}
        </button>
      }
    >
      <span class="d-confirm">
        <span id={question}>{props.question}</span>
        <button
          type="button"
          class="d-danger"
          aria-describedby={question}
          ref={(b) => queueMicrotask(() => b.focus())}
          onKeyDown={onEscape}
          onClick={() => {
            setAsking(false);
            void props.onConfirm();
          }}
        >
          {props.confirm}
        </button>
        <button type="button" onKeyDown={onEscape} onClick={cancel}>
          Cancel
        </button>
      </span>
    </Show>
  );
}
