// Where a session stands when the person has nothing (more) to do on this page (SessionView): completed,
// expired (the step's time or the link's), stopped, failed (why, in words), waiting for the business, or open
// in another browser. Each takes the focus when it appears (focusPanel).
import { Show } from 'solid-js';
import { focusPanel } from '../components/focus';
import { t } from '../i18n';
import type { SignerSession } from '../types';

export function Done(props: { canAct: boolean; hasReturn: boolean }) {
  return (
    <div data-testid="done" class="done">
      <svg class="done-mark" data-testid="done-mark" viewBox="0 0 48 48" aria-hidden="true">
        <circle cx="24" cy="24" r="22" />
        <path d="M14 25l7 7 13-15" />
      </svg>
      <h2 ref={focusPanel} tabIndex={-1}>
        {t('state.doneTitle')}
      </h2>
      {/* the record is below only in the browser that did the steps (ReceiptPanel) */}
      <Show when={props.canAct}>
        <p>{t('state.doneText')}</p>
      </Show>
      <Show when={!props.hasReturn}>
        <p data-testid="done-close">{t('state.doneClose')}</p>
      </Show>
    </div>
  );
}

/** The step's own window, or the link's: each says which time ran out. */
export function Expired(props: { session: SignerSession }) {
  const step = () => props.session.failure?.window === 'step';
  const business = () => props.session.business.name;
  return (
    <div data-testid="expired" data-window={props.session.failure?.window ?? 'overall'}>
      <h2 ref={focusPanel} tabIndex={-1}>
        {step() ? t('state.stepExpiredTitle') : t('state.expiredTitle')}
      </h2>
      <p>
        {step()
          ? t('state.stepExpiredText', { business: business() })
          : t('state.expiredText', { business: business() })}
      </p>
    </div>
  );
}

export function Stopped(props: { business: string }) {
  return (
    <div data-testid="stopped">
      <h2 ref={focusPanel} tabIndex={-1}>
        {t('state.stoppedTitle')}
      </h2>
      <p>{t('state.stoppedText', { business: props.business })}</p>
    </div>
  );
}

export function Failed(props: { session: SignerSession }) {
  return (
    <div data-testid="failed">
      <h2 ref={focusPanel} tabIndex={-1}>
        {t('state.failedTitle')}
      </h2>
      <Show when={failureText(props.session)}>{(why) => <p data-testid="failure-reason">{why()}</p>}</Show>
      <p>{t('state.failedText', { business: props.session.business.name })}</p>
    </div>
  );
}

export function Waiting(props: { business: string }) {
  return (
    <div data-testid="waiting">
      <h2 ref={focusPanel} tabIndex={-1}>
        {t('state.waitingTitle', { business: props.business })}
      </h2>
      <p>{t('state.waitingText', { business: props.business })}</p>
    </div>
  );
}

export function OtherBrowser() {
  return (
    <div data-testid="other-browser">
      <h2 ref={focusPanel} tabIndex={-1}>
        {t('state.otherTitle')}
      </h2>
      <p>{t('state.otherText')}</p>
    </div>
  );
}

/**
 * Why a failed session failed, in words the person can act on (issue 29): a workflow condition that refused
 * what was shared (an age check a minor did not pass, a nationality or document not accepted), or answers
 * refused too often. The codes are the API's failure_reason codes.
 */
function failureText(p: SignerSession): string | undefined {
  const f = p.failure;
  if (!f || p.status !== 'failed') return undefined;
  const business = p.business.name;
  const step = p.steps.find((s) => s.stage === f.stage);
  switch (f.code) {
    case 'age_requirement_not_met':
      return step?.threshold
        ? t('failure.ageThreshold', { threshold: step.threshold, business })
        : t('failure.age', { business });
    case 'nationality_not_accepted':
      return t('failure.nationality', { business });
    case 'document_not_accepted':
      return t('failure.document', { business });
    case 'condition_not_met':
      return t('failure.condition', { business });
    default:
      return t('failure.refused');
  }
}
