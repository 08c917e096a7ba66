// The sandbox wallet's consent screen (issue 19, ADR 0040): before the reference wallet answers, it shows who
// asks and why as it read them from the signed request it received and verified (the registration
// certificate in verifier_info: the business's name and purpose; the hosted verifier as intermediary), not
// from this page's own data; at a sign step the documents it signs (label, SHA-256), at an attestation step the
// terms (issue 29). Share lets the wallet answer; Decline drops the request, nothing is sent.
import { createSignal, For, type JSX, Show } from 'solid-js';
import { focusOnAppear } from '../components/focus';
import { claimLabel } from '../components/StepList';
import { t } from '../i18n';
import type { ActionRunner, SignerSession, WalletShown } from '../types';

/**
 * The sandbox wallet's consent state: the request it read and is asking about (`pending`, with what it shows),
 * and whether the person declined the last one. `share` answers the pending request through the runner.
 */
export function createWalletConsent<T extends { shown: WalletShown }>(
  runner: ActionRunner,
  answer: (pending: T) => Promise<SignerSession | undefined>,
  /** Where Share's answer is shown (ActionFeedback beside the wallet's button). */
  place: string,
) {
  const [pending, setPending] = createSignal<T>();
  const [declined, setDeclined] = createSignal(false);
  return {
    pending,
    declined,
    /** A new request is being read: the last decline no longer applies. */
    reset: () => setDeclined(false),
    ask: (p: T) => setPending(() => p),
    share: () =>
      runner.run(async () => {
        const p = pending();
        if (!p) return undefined;
        try {
          return await answer(p);
        } finally {
          setPending(undefined);
        }
      }, place),
    decline: () => {
      setPending(undefined);
      setDeclined(true);
    },
  };
}

/** The wallet's own button (children), or its consent card while a request is pending; the declined note. */
export function WalletConsentGate(props: {
  id: string;
  consent: {
    pending: () => { shown: WalletShown } | undefined;
    declined: () => boolean;
    share: () => void;
    decline: () => void;
  };
  busy: boolean;
  children: JSX.Element;
}) {
  return (
    <>
      <Show when={props.consent.pending()} fallback={props.children}>
        {(p) => (
          <WalletConsent
            id={props.id}
            shown={p().shown}
            busy={props.busy}
            onShare={props.consent.share}
            onDecline={props.consent.decline}
          />
        )}
      </Show>
      <Show when={props.consent.declined()}>
        <p role="status" data-testid="consent-declined">
          {t('consent.declined')}
        </p>
      </Show>
    </>
  );
}

export function WalletConsent(props: {
  shown: WalletShown;
  busy: boolean;
  onShare: () => void;
  onDecline: () => void;
  /** Distinguishes the same-device and the cross-device card (test ids, heading ids). */
  id: string;
}) {
  const rp = () => props.shown.relying_party;
  return (
    <section
      class="notice"
      data-testid={`wallet-consent-${props.id}`}
      aria-labelledby={`wallet-consent-${props.id}-title`}
    >
      <h3 id={`wallet-consent-${props.id}-title`} ref={focusOnAppear} tabIndex={-1}>
        {t('consent.title')}
      </h3>
      <Show when={rp()}>
        {(party) => (
          <>
            <p>
              <strong data-testid="consent-business">{t('consent.asks', { business: party().name })}</strong>
            </p>
            <Show when={props.shown.claims.length > 0}>
              <ul data-testid="consent-claims">
                <For each={props.shown.claims}>{(c) => <li>{claimLabel(c)}</li>}</For>
              </ul>
            </Show>
            {/* what the wallet signs, read from the request's transaction data (issue 29) */}
            <Show when={(props.shown.documents ?? []).length > 0}>
              <p>
                <strong>{t('consent.signs')}</strong>
              </p>
              <ul data-testid="consent-documents">
                <For each={props.shown.documents}>
                  {(d) => (
                    <li>
                      {d.label}
                      <br />
                      <span class="hash muted">
                        SHA-256: <code>{d.sha256}</code>
                      </span>
                    </li>
                  )}
                </For>
              </ul>
            </Show>
            <Show when={props.shown.terms}>
              {(terms) => (
                <>
                  <p>
                    <strong>{t('consent.approves')}</strong>
                  </p>
                  <blockquote class="terms" data-testid="consent-terms">
                    {terms().text}
                  </blockquote>
                  <p class="hash muted">
                    SHA-256: <code>{terms().sha256}</code>
                  </p>
                </>
              )}
            </Show>
            <p data-testid="consent-purpose">
              {party().purpose
                ? t('consent.purpose', { purpose: party().purpose ?? '' })
                : t('consent.noPurpose')}
            </p>
          </>
        )}
      </Show>
      <p class="muted" data-testid="consent-via">
        {/* intermediary mode (ADR 0053): the intermediary's name from the registration certificate, and its host */}
        {t('consent.via', {
          host: rp()?.via ? `${rp()?.via} (${props.shown.intermediary})` : props.shown.intermediary,
        })}
      </p>
      <p class="muted">{t('consent.verified')}</p>
      <button
        type="button"
        class="button"
        data-testid="consent-share"
        disabled={props.busy}
        onClick={() => props.onShare()}
      >
        {props.busy ? t('step.sharing') : t('consent.share')}
      </button>
      <button
        type="button"
        class="button secondary"
        data-testid="consent-decline"
        disabled={props.busy}
        onClick={() => props.onDecline()}
      >
        {t('consent.decline')}
      </button>
    </section>
  );
}
