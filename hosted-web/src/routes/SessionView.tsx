// One loaded session: what is asked, and the one thing the person can do now. Owns the action lifecycle
// (busy flag, the error shown, re-reading the projection) and the 3 s polling while the session is live.
import { createEffect, createMemo, createSignal, Match, onCleanup, Show, Suspense, Switch } from 'solid-js';
import { getSession, startSession } from '../api';
import { ActionFeedback } from '../components/ActionFeedback';
import { Deadline } from '../components/Deadline';
import { ErrorAlert } from '../components/ErrorAlert';
import { focusPanel } from '../components/focus';
import { ReceiptPanel } from '../components/ReceiptPanel';
import { StepList } from '../components/StepList';
import { toUserError, type UserError } from '../errors';
import { t } from '../i18n';
import { IdentifyStep } from '../steps/IdentifyStep';
import type { ActionRunner, SignerSession } from '../types';

const POLL_MS = 3000;

export function SessionView(props: {
  projection: SignerSession;
  onProjection: (next: SignerSession) => void;
}) {
  const p = () => props.projection;
  const status = createMemo(() => p().status);
  const business = () => p().business.name;
  // only a path on this service (the CSP allows images from 'self' only anyway)
  const logo = () => {
    const u = p().business.logoUrl;
    return u && /^\/branding\/logos\/[0-9a-f]{64}$/.test(u) ? u : undefined;
  };
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<UserError>();
  // where the last action was: its failure is shown there (ActionFeedback), else at the top of the panel
  const [place, setPlace] = createSignal<string>();

  // Responses can arrive out of order (a poll started before an action may answer after it): only a read that
  // started after the last applied one may replace the state.
  let started = 0;
  let applied = 0;
  const apply = (seq: number, next: SignerSession) => {
    if (seq < applied) return;
    applied = seq;
    props.onProjection(next);
  };
  const tracked = async (read: () => Promise<SignerSession>) => {
    const seq = ++started;
    apply(seq, await read());
  };
  const refresh = () => tracked(() => getSession(p().id)).catch(() => undefined); // next poll or action retries

  const runner: ActionRunner = {
    busy,
    error,
    place,
    run: async (action, at) => {
      if (busy()) return;
      setBusy(true);
      setError(undefined);
      setPlace(at);
      const seq = ++started;
      try {
        const next = await action();
        if (next) apply(seq, next);
      } catch (err) {
        setError(toUserError(err));
        await refresh();
      } finally {
        setBusy(false);
      }
    },
  };

  createEffect(() => {
    const s = status();
    if (s !== 'in_progress' && s !== 'awaiting_decision') return;
    const timer = setInterval(() => {
      if (!busy()) void refresh();
    }, POLL_MS);
    onCleanup(() => clearInterval(timer));
  });

  // Branding: the business's accent replaces ours for buttons and links (contrast checked by the server).
  createEffect(() => {
    const accent = p().business.accentColor;
    const root = document.documentElement.style;
    if (accent && /^#[0-9a-f]{6}$/.test(accent)) {
      root.setProperty('--accent', accent);
      root.setProperty('--accent-hover', accent);
    } else {
      root.removeProperty('--accent');
      root.removeProperty('--accent-hover');
    }
  });

  createEffect(() => {
    document.title = t('page.title', { business: business() });
  });

  const canAct = () => p().binding === 'this_browser';
  // terminal or not is the server's state machine's answer (SignerSession.ended), not a list kept here
  const ended = () => p().ended;
  // The server sends returnUrl only after the end; parsed here to name its host, and only http(s) is linked.
  const returnTarget = createMemo(() => {
    const raw = p().returnUrl;
    if (!raw) return undefined;
    try {
      const u = new URL(raw);
      return u.protocol === 'https:' || u.protocol === 'http:' ? { href: u.href, host: u.host } : undefined;
    } catch {
      return undefined;
    }
  });
  const currentStep = () => p().steps.find((s) => s.stage === p().currentStage);
  // Keyed by stage so a step's local state (chosen persona, fetched request) resets when the next step begins,
  // but survives the new projection object every poll brings.
  const stageKey = createMemo(() => (currentStep() ? `stage-${p().currentStage}` : undefined));

  return (
    <>
      <header class="header">
        <Show when={logo()}>
          {(src) => <img class="logo" src={src()} alt={business()} data-testid="business-logo" />}
        </Show>
        <Show when={p().environment === 'sandbox'}>
          <span class="badge" data-testid="sandbox-badge">
            {t('page.sandbox')}
          </span>
        </Show>
        <h1>{business()}</h1>
      </header>

      <section class="card" aria-labelledby="asks-heading">
        <h2 id="asks-heading">{t('page.asks', { business: business() })}</h2>
        <StepList projection={p()} />
      </section>

      <section class="card" aria-label={t('page.nextStep')}>
        <Deadline projection={p()} />
        {/* once the session ended, an answer's "try again" would contradict the outcome below: the outcome says it */}
        <Show when={!ended() && !place() ? error() : undefined}>{(e) => <ErrorAlert error={e()} />}</Show>
        {/* after a reload (no action on this page yet): the count stands above the step; after an action, next
            to its button (ActionFeedback) */}
        <Show
          when={status() === 'in_progress' && canAct() && !(error() && place()) ? p().triesLeft : undefined}
        >
          {(n) => (
            <p class="notice" data-testid="tries-left">
              {n() === 1 ? t('state.lastTry') : t('state.triesLeft', { n: n() })}
            </p>
          )}
        </Show>
        <Switch
          fallback={
            <div data-testid="pending">
              <h2 ref={focusPanel} tabIndex={-1}>
                {t('state.pendingTitle')}
              </h2>
              <p>{t('state.pendingText')}</p>
            </div>
          }
        >
          <Match when={status() === 'completed'}>
            <div data-testid="done" class="done">
              <svg class="done-mark" data-testid="done-mark" viewBox="0 0 48 48" aria-hidden="true">
                <circle cx="24" cy="24" r="22" />
                <path d="M14 25l7 7 13-15" />
              </svg>
              <h2 ref={focusPanel} tabIndex={-1}>
                {t('state.doneTitle')}
              </h2>
              {/* the record is below only in the browser that did the steps (ReceiptPanel) */}
              <Show when={canAct()}>
                <p>{t('state.doneText')}</p>
              </Show>
              <Show when={!returnTarget()}>
                <p data-testid="done-close">{t('state.doneClose')}</p>
              </Show>
            </div>
          </Match>
          <Match when={status() === 'expired'}>
            {/* the step's own window, or the link's: each says which time ran out */}
            <div data-testid="expired" data-window={p().failure?.window ?? 'overall'}>
              <h2 ref={focusPanel} tabIndex={-1}>
                {p().failure?.window === 'step' ? t('state.stepExpiredTitle') : t('state.expiredTitle')}
              </h2>
              <p>
                {p().failure?.window === 'step'
                  ? t('state.stepExpiredText', { business: business() })
                  : t('state.expiredText', { business: business() })}
              </p>
            </div>
          </Match>
          <Match when={status() === 'stopped'}>
            <div data-testid="stopped">
              <h2 ref={focusPanel} tabIndex={-1}>
                {t('state.stoppedTitle')}
              </h2>
              <p>{t('state.stoppedText', { business: business() })}</p>
            </div>
          </Match>
          <Match when={status() === 'failed'}>
            <div data-testid="failed">
              <h2 ref={focusPanel} tabIndex={-1}>
                {t('state.failedTitle')}
              </h2>
              <Show when={failureText(p())}>{(why) => <p data-testid="failure-reason">{why()}</p>}</Show>
              <p>{t('state.failedText', { business: business() })}</p>
            </div>
          </Match>
          <Match when={status() === 'awaiting_decision'}>
            <div data-testid="waiting">
              <h2 ref={focusPanel} tabIndex={-1}>
                {t('state.waitingTitle', { business: business() })}
              </h2>
              <p>{t('state.waitingText', { business: business() })}</p>
            </div>
          </Match>
          <Match
            when={(status() === 'created' || status() === 'in_progress') && p().binding === 'other_browser'}
          >
            <OtherBrowser />
          </Match>
          <Match when={status() === 'created'}>
            <div>
              <h2 ref={focusPanel} tabIndex={-1}>
                {t('state.readyTitle')}
              </h2>
              <p>{t('state.readyText')}</p>
              <ActionFeedback runner={runner} place="start" />
              <button
                type="button"
                class="button"
                data-testid="start"
                disabled={busy()}
                onClick={() => runner.run(() => startSession(p().id), 'start')}
              >
                {busy() ? t('state.starting') : t('state.start')}
              </button>
            </div>
          </Match>
          <Match when={status() === 'in_progress' && !canAct()}>
            <OtherBrowser />
          </Match>
          <Match when={status() === 'in_progress' && stageKey()} keyed>
            {(_key) => {
              const step = currentStep()!;
              // Every primitive runs through the same wallet flow; StepContent shows what is asked.
              return <IdentifyStep session={p()} step={step} runner={runner} />;
            }}
          </Match>
        </Switch>
        <Show when={returnTarget()}>
          {(r) => (
            <p>
              {/* the business's URL exactly as registered at create: the page never appends results or a query */}
              <a class="button" href={r().href} data-testid="return-link" rel="noopener noreferrer">
                {t('state.returnTo', { host: r().host })}
              </a>
            </p>
          )}
        </Show>
      </section>

      <Show when={canAct() && p().completedStages.length > 0}>
        {/* its own boundary: the record loading never replaces the page (the step or the outcome above) */}
        <Suspense>
          <ReceiptPanel sessionId={p().id} version={`${status()}:${p().completedStages.length}`} />
        </Suspense>
      </Show>
    </>
  );
}

function OtherBrowser() {
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
