// The one deadline the person faces now (ADR 0029): the step window once a step has started, else the link's
// expiry, as the server's projection says (nothing when nothing can run out: waiting or ended). In the last
// COUNTDOWN_MS it becomes a countdown that stays in view while the person scrolls. Time left is reckoned
// from the server's clock at the last answer plus the time elapsed here, so a wrong device clock does not
// show a wrong countdown.
import { createMemo, createSignal, onCleanup, Show } from 'solid-js';
import { formatDateTime, formatTime, t } from '../i18n';
import type { SignerSession } from '../types';

const COUNTDOWN_MS = 5 * 60_000;

export function Deadline(props: { projection: SignerSession }) {
  const [now, setNow] = createSignal(Date.now());
  const timer = setInterval(() => setNow(Date.now()), 1000);
  onCleanup(() => clearInterval(timer));
  // server time minus device time, taken when each projection arrives
  const offset = createMemo(() => {
    const server = Date.parse(props.projection.serverTime);
    return Number.isNaN(server) ? 0 : server - Date.now();
  });
  const left = () => {
    const at = props.projection.deadline;
    return at ? Date.parse(at) - (now() + offset()) : undefined;
  };
  const step = () => props.projection.deadlineKind === 'step';
  const clock = (ms: number) => {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  };

  return (
    <Show when={props.projection.deadline}>
      {(at) => (
        <Show
          when={(left() ?? Infinity) <= COUNTDOWN_MS}
          fallback={
            <p class="deadline" data-testid="deadline" data-kind={props.projection.deadlineKind}>
              <time datetime={at()}>
                {step()
                  ? t('deadline.step', { time: formatTime(at()) })
                  : t('page.validUntil', { date: formatDateTime(at()) })}
              </time>
            </p>
          }
        >
          <p
            class="deadline deadline-soon"
            data-testid="deadline"
            data-kind={props.projection.deadlineKind}
            role="timer"
            aria-atomic="true"
          >
            <Show when={(left() ?? 0) > 0} fallback={t('deadline.up')}>
              {step()
                ? t('deadline.stepLeft', { time: clock(left() ?? 0) })
                : t('deadline.linkLeft', { time: clock(left() ?? 0) })}{' '}
              <span class="muted">
                (<time datetime={at()}>{formatTime(at())}</time>)
              </span>
            </Show>
          </p>
        </Show>
      )}
    </Show>
  );
}
