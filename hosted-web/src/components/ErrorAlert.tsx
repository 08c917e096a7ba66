// Shows one user-facing error; the request id is there for support, small. With `focus`, the alert takes the
// focus when it appears (an answer to the person's own action, shown where the action was: ActionFeedback).
import { type JSX, Show } from 'solid-js';
import { errorMessage, type UserError } from '../errors';
import { t } from '../i18n';

export function ErrorAlert(props: {
  error: UserError;
  focus?: boolean;
  testId?: string;
  children?: JSX.Element;
}) {
  return (
    <div
      class="alert"
      role="alert"
      data-testid="error"
      data-place={props.testId}
      tabIndex={props.focus ? -1 : undefined}
      ref={(el) => {
        // in the middle of the view: the button just pressed, right below it, stays in view too
        if (props.focus)
          queueMicrotask(() => {
            el.focus({ preventScroll: true });
            el.scrollIntoView({ block: 'center' });
          });
      }}
    >
      <p>{errorMessage(props.error)}</p>
      {props.children}
      <Show when={props.error.requestId}>
        {(requestId) => (
          <p class="alert-ref">
            {t('page.supportRef')} <code data-testid="request-id">{requestId()}</code>
          </p>
        )}
      </Show>
    </div>
  );
}
