// One loaded session: what is asked, and the one thing the person can do now. The action lifecycle and the
// polling are createSessionRunner's (session-runner.ts); where a session stands once there is nothing to do,
// SessionOutcome.tsx.
import { createEffect, createMemo, Match, Show, Suspense, Switch } from 'solid-js';
import { startSession } from '../api';
import { ActionFeedback } from '../components/ActionFeedback';
import { Deadline } from '../components/Deadline';
import { ErrorAlert } from '../components/ErrorAlert';
import { focusPanel } from '../components/focus';
import { ReceiptPanel } from '../components/ReceiptPanel';
import { StepList } from '../components/StepList';
import { t } from '../i18n';
import { IdentifyStep } from '../steps/IdentifyStep';
import type { SignerSession } from '../types';
import { Done, Expired, Failed, OtherBrowser, Stopped, Waiting } from './SessionOutcome';
import { createSessionRunner } from './session-runner';

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
  const runner = createSessionRunner({
    sessionId: () => p().id,
    status,
    onProjection: (next) => props.onProjection(next),
  });
  const { busy, error, place } = runner;

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
            <Done canAct={canAct()} hasReturn={Boolean(returnTarget())} />
          </Match>
          <Match when={status() === 'expired'}>
            <Expired session={p()} />
          </Match>
          <Match when={status() === 'stopped'}>
            <Stopped business={business()} />
          </Match>
          <Match when={status() === 'failed'}>
            <Failed session={p()} />
          </Match>
          <Match when={status() === 'awaiting_decision'}>
            <Waiting business={business()} />
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
