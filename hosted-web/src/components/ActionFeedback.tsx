// The answer to an action, where the action was (issue 29): a refused wallet answer, with how many more
// answers the step accepts, right before the button just pressed, in an alert (announced by screen readers)
// that takes the focus (the pressed button was disabled while busy, so the focus would otherwise fall back to
// the top of the page). The same for every step and wallet, on a phone and a desktop.
import { Show } from 'solid-js';
import { t } from '../i18n';
import type { ActionRunner } from '../types';
import { ErrorAlert } from './ErrorAlert';

export function ActionFeedback(props: {
  runner: ActionRunner;
  place: string;
  /** The projection's answers still accepted by the running step (null before any refusal). */
  triesLeft?: number | null;
}) {
  return (
    <Show when={props.runner.place() === props.place ? props.runner.error() : undefined}>
      {(e) => (
        <ErrorAlert error={e()} focus testId={`feedback-${props.place}`}>
          <Show when={props.triesLeft}>
            {(n) => (
              <p class="alert-tries" data-testid="tries-left">
                {n() === 1 ? t('state.lastTry') : t('state.triesLeft', { n: n() })}
              </p>
            )}
          </Show>
        </ErrorAlert>
      )}
    </Show>
  );
}
