// Shows one user-facing error; the request id is there for support, small.
import { Show } from 'solid-js';
import type { UserError } from '../errors';

export function ErrorAlert(props: { error: UserError }) {
  return (
    <div class="alert" role="alert" data-testid="error">
      <p>{props.error.message}</p>
      <Show when={props.error.requestId}>
        {(requestId) => (
          <p class="alert-ref">
            Reference for support: <code data-testid="request-id">{requestId()}</code>
          </p>
        )}
      </Show>
    </div>
  );
}
