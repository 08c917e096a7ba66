// One loaded session: what is asked, and the one thing the person can do now. Owns the action lifecycle
// (busy flag, the error shown, re-reading the projection) and the 3 s polling while the session is live.
import { createEffect, createMemo, createSignal, Match, onCleanup, Show, Switch } from 'solid-js';
import { getSession, startSession } from '../api';
import { ErrorAlert } from '../components/ErrorAlert';
import { focusPanel } from '../components/focus';
import { ReceiptPanel } from '../components/ReceiptPanel';
import { StepList } from '../components/StepList';
import { toUserError, type UserError } from '../errors';
import { IdentifyStep } from '../steps/IdentifyStep';
import type { SessionProjection } from '../types';

const POLL_MS = 3000;

export interface ActionRunner {
  busy: () => boolean;
  /** Runs one user action; a returned projection becomes the page state, a failure is shown and the state re-read. */
  run: (action: () => Promise<SessionProjection | undefined>) => Promise<void>;
}

const expiryFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
function formatExpiry(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : expiryFormat.format(date);
}

export function SessionView(props: {
  projection: SessionProjection;
  onProjection: (next: SessionProjection) => void;
}) {
  const p = () => props.projection;
  const status = createMemo(() => p().status);
  const business = () => p().business.name;
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<UserError>();

  // Responses can arrive out of order (a poll started before an action may answer after it): only a read that
  // started after the last applied one may replace the state.
  let started = 0;
  let applied = 0;
  const apply = (seq: number, next: SessionProjection) => {
    if (seq < applied) return;
    applied = seq;
    props.onProjection(next);
  };
  const tracked = async (read: () => Promise<SessionProjection>) => {
    const seq = ++started;
    apply(seq, await read());
  };
  const refresh = () => tracked(() => getSession(p().id)).catch(() => undefined); // next poll or action retries

  const runner: ActionRunner = {
    busy,
    run: async (action) => {
      if (busy()) return;
      setBusy(true);
      setError(undefined);
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

  createEffect(() => {
    document.title = `${business()} – Verification`;
  });

  const canAct = () => p().binding === 'this_browser';
  const currentStep = () => p().steps.find((s) => s.stage === p().current_stage);
  // Keyed by stage so a step's local state (chosen persona, fetched request) resets when the next step begins,
  // but survives the new projection object every poll brings.
  const stageKey = createMemo(() => (currentStep() ? `stage-${p().current_stage}` : undefined));

  return (
    <>
      <header class="header">
        <Show when={p().environment === 'sandbox'}>
          <span class="badge" data-testid="sandbox-badge">
            SANDBOX
          </span>
        </Show>
        <p class="eyebrow">{p().workflow.name}</p>
        <h1>{business()}</h1>
      </header>

      <section class="card" aria-labelledby="asks-heading">
        <h2 id="asks-heading">{business()} asks you to share:</h2>
        <StepList projection={p()} />
        <p class="muted">
          This link is valid until <time datetime={p().expires}>{formatExpiry(p().expires)}</time>.
        </p>
      </section>

      <section class="card" aria-label="Your next step">
        <Show when={error()}>{(e) => <ErrorAlert error={e()} />}</Show>
        <Switch
          fallback={
            <div data-testid="pending">
              <h2 ref={focusPanel} tabIndex={-1}>
                One moment
              </h2>
              <p>This page updates by itself.</p>
            </div>
          }
        >
          <Match when={status() === 'completed'}>
            <div data-testid="done">
              <h2 ref={focusPanel} tabIndex={-1}>
                Verification complete.
              </h2>
              <p>Your record of it is below, under “Your record”.</p>
            </div>
          </Match>
          <Match when={status() === 'expired'}>
            <div data-testid="expired">
              <h2 ref={focusPanel} tabIndex={-1}>
                This link has expired
              </h2>
              <p>
                Nothing more can be done with it. If you still need to verify, ask {business()} for a new
                link.
              </p>
            </div>
          </Match>
          <Match when={status() === 'stopped'}>
            <div data-testid="stopped">
              <h2 ref={focusPanel} tabIndex={-1}>
                This verification was stopped
              </h2>
              <p>{business()} ended it. You can close this page.</p>
            </div>
          </Match>
          <Match when={status() === 'failed'}>
            <div data-testid="failed">
              <h2 ref={focusPanel} tabIndex={-1}>
                This verification could not be completed
              </h2>
              <p>If you still need to verify, ask {business()} for a new link.</p>
            </div>
          </Match>
          <Match when={status() === 'awaiting_decision'}>
            <div data-testid="waiting">
              <h2 ref={focusPanel} tabIndex={-1}>
                Waiting for {business()}
              </h2>
              <p>{business()} is reviewing what you shared. This page updates by itself.</p>
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
                Ready when you are
              </h2>
              <p>Starting links this verification to this browser. Finish it here, on this device.</p>
              <button
                type="button"
                class="button"
                data-testid="start"
                disabled={busy()}
                onClick={() => runner.run(() => startSession(p().id))}
              >
                {busy() ? 'Starting…' : 'Start'}
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
      </section>

      <Show when={canAct() && p().completed_stages.length > 0}>
        <ReceiptPanel sessionId={p().id} version={`${status()}:${p().completed_stages.length}`} />
      </Show>

      <footer class="footer">
        Status: <span data-testid="status">{status()}</span>
      </footer>
    </>
  );
}

function OtherBrowser() {
  return (
    <div data-testid="other-browser">
      <h2 ref={focusPanel} tabIndex={-1}>
        Started on another device
      </h2>
      <p>
        This verification was started on another device or browser, and can only be finished there. If that
        was not you, contact the business that sent you the link.
      </p>
    </div>
  );
}
