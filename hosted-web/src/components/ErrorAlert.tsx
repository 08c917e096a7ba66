// Shows one user-facing error; the request id is there for support, small.
import { Show } from 'solid-js';
import { errorMessage, type UserError } from '../errors';
import { t } from '../i18n';

export function ErrorAlert(props: { error: UserError }) {
  return (
    <div class="alert" role="alert" data-testid="error">
      <p>{errorMessage(props.error)}</p>
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
