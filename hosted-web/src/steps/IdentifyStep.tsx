// A wallet step (every primitive uses the same transport; StepContent shows what is asked): fetch the wallet request for the
// current step, let a wallet answer it, submit the answer. Wallets: the browser's Digital Credentials API when
// present (DcApi.ts: signed request when the browser allows it), a wallet on another device (CrossDevice.tsx:
// QR code / openid4vp:// link), and in sandbox the service's reference wallet with test personas.
import { createSignal, For, onCleanup, Show } from 'solid-js';
import {
  ApiError,
  createWalletRequest,
  referenceWalletRespond,
  reportDocumentShown,
  sandboxWalletRead,
  sandboxWalletRespondSigned,
  submitWalletResponse,
  walletOffer,
} from '../api';
import { ActionFeedback } from '../components/ActionFeedback';
import { focusOnAppear, focusPanel } from '../components/focus';
import { hasMessage, t } from '../i18n';
import type {
  ActionRunner,
  AnnexCWalletRequest,
  SandboxPersona,
  SignedWalletRequest,
  SignerSession,
  SignerStep,
  WalletRequest,
  WalletShown,
} from '../types';
import { CrossDevice } from './CrossDevice';
import {
  ANNEX_C_PROTOCOL,
  allowsAnnexC,
  askBrowserWallet,
  hasDigitalCredentials,
  preferredProtocol,
  SIGNED_PROTOCOL,
} from './DcApi';
import { StepContent, stepHeading } from './StepContent';
import { createWalletConsent, WalletConsentGate } from './WalletConsent';

// A request this close to its expiry is replaced rather than handed to a wallet that may take a while.
const REQUEST_MARGIN_MS = 10_000;

export function IdentifyStep(props: { session: SignerSession; step: SignerStep; runner: ActionRunner }) {
  // The sandbox test persons that can answer this step come with the session (GraphQL). Taken once: this
  // component lives for one step, and a poll's new list must not rebuild the choice under the person's hand.
  const stepPersonas = props.session.sandboxPersonas;
  const personas = () => stepPersonas;
  const [persona, setPersona] = createSignal(stepPersonas[0]?.id ?? '');
  // sandbox: the protocol the test wallet answers over (Annex C shows the Safari/Apple Wallet path without one)
  const [sandboxProtocol, setSandboxProtocol] = createSignal<'openid4vp' | 'org-iso-mdoc'>('openid4vp');
  const [requested, setRequested] = createSignal(false);
  // a wallet on this device has the request and the person has not finished there yet (ADR 0049)
  const [waiting, setWaiting] = createSignal(false);
  // sign: documents shown to their end on this page and recorded by the server; the wallet is offered after all
  // (a reload starts from what the server recorded, ADR 0029: Share stays enabled)
  const [shown, setShown] = createSignal<readonly number[]>(
    (props.step.documents ?? []).filter((d) => d.shownToEnd).map((d) => d.position),
  );
  const reporting = new Set<number>();
  let retry: ReturnType<typeof setTimeout> | undefined;
  onCleanup(() => clearTimeout(retry));
  const onShownToEnd = (position: number, attempt = 0) => {
    if (shown().includes(position) || reporting.has(position)) return;
    reporting.add(position);
    reportDocumentShown(props.session.id, position)
      .then((r) => setShown(r.shown_to_end))
      .catch(() => {
        // not recorded (network): tried again a few times, and again whenever the end comes back into view
        if (attempt < 3) retry = setTimeout(() => onShownToEnd(position, attempt + 1), 2000 * (attempt + 1));
      })
      .finally(() => reporting.delete(position));
  };
  const allShown = () =>
    props.step.primitive !== 'sign' ||
    (props.step.documents ?? []).every((d) => shown().includes(d.position));
  // A wallet request is single-use: it is dropped once handed to a wallet, so a retry fetches a fresh one.
  let request: WalletRequest | undefined;

  const freshRequest = async (): Promise<WalletRequest> => {
    if (request && Date.parse(request.expires) - REQUEST_MARGIN_MS > Date.now()) return request;
    const offer = walletOffer(props.session, 'dc_api');
    if (!offer) throw new ApiError('session_state_conflict', 409);
    const next = await createWalletRequest<WalletRequest>(offer);
    request = next;
    setRequested(true);
    return next;
  };
  const takeRequest = async () => {
    const req = await freshRequest();
    request = undefined;
    return req;
  };

  const start = () =>
    props.runner.run(async () => {
      await freshRequest();
      return undefined;
    }, 'share');
  // One browser call with every request this step can be answered with: OpenID4VP (signed when allowed) and,
  // where the session offers it for this step (walletRequests: the server's Annex C rule), org-iso-mdoc. The browser picks one; the answer goes to that protocol's request id.
  const shareWithBrowserWallet = () =>
    props.runner.run(async () => {
      const pending: { protocol: string; data: Record<string, unknown>; id: string; expires: string }[] = [];
      const openid = preferredProtocol();
      const signedOffer = walletOffer(props.session, 'dc_api_signed');
      if (openid === SIGNED_PROTOCOL && signedOffer) {
        const signed = await createWalletRequest<SignedWalletRequest>(signedOffer);
        pending.push({
          protocol: signed.protocol,
          data: signed.request,
          id: signed.request_id,
          expires: signed.expires,
        });
      } else if (openid) {
        const req = await takeRequest();
        pending.push({ protocol: req.protocol, data: req.request, id: req.request_id, expires: req.expires });
      }
      const isoOffer = walletOffer(props.session, 'org_iso_mdoc');
      if (isoOffer && allowsAnnexC()) {
        // offered only where an mdoc can answer; should the server still refuse it, ask without it
        const iso = await createWalletRequest<AnnexCWalletRequest>(isoOffer).catch((e: unknown) => {
          if (e instanceof ApiError && e.code === 'protocol_not_offered') return null;
          throw e;
        });
        if (iso)
          pending.push({
            protocol: iso.protocol,
            data: iso.request,
            id: iso.request_id,
            expires: iso.expires,
          });
      }
      if (pending.length === 0) throw new ApiError('wallet_unavailable', 0);
      // the wallet's own screen is up now: say so until it answers, declines or the request expires
      setWaiting(true);
      const answer = await askBrowserWallet({
        requests: pending.map(({ protocol, data }) => ({ protocol, data })),
        expires: pending.map((p) => p.expires).sort()[0] as string,
      }).finally(() => setWaiting(false));
      const answered = pending.find((p) => p.protocol === answer.protocol) as (typeof pending)[number];
      return submitWalletResponse(props.session.id, answered.id, answer.data);
    }, 'browser-wallet');
  const shareWithReferenceWallet = () =>
    props.runner.run(async () => {
      consent.reset();
      if (offersAnnexC() && sandboxProtocol() === ANNEX_C_PROTOCOL) {
        // ISO 18013-7 Annex C: the reference wallet answers the DeviceRequest as Safari's wallet would
        const iso = await createWalletRequest<AnnexCWalletRequest>(
          walletOffer(props.session, 'org_iso_mdoc') as NonNullable<ReturnType<typeof walletOffer>>,
        );
        const answer = await referenceWalletRespond(persona(), iso.request);
        return submitWalletResponse(props.session.id, iso.request_id, answer.response);
      }
      const signedOffer = walletOffer(props.session, 'dc_api_signed');
      if (signedOffer) {
        // The wallet gets the signed request and reads it first: what its consent card shows (who asks, why,
        // via whom) comes from the verified request, not from this page (ADR 0040).
        const signed = await createWalletRequest<SignedWalletRequest>(signedOffer);
        const shown = await sandboxWalletRead({ request: signed.request });
        if (shown.relying_party) {
          consent.ask({ shown, request: signed });
          return undefined;
        }
        return answerSigned(signed);
      }
      const req = await takeRequest();
      const answer = await referenceWalletRespond(persona(), req.request);
      return submitWalletResponse(props.session.id, req.request_id, answer.response);
    }, 'same-device');
  const answerSigned = async (signed: SignedWalletRequest) => {
    const answer = await sandboxWalletRespondSigned(persona(), signed.request);
    return submitWalletResponse(props.session.id, signed.request_id, answer);
  };
  // the consent card of the sandbox wallet: Share answers the request it read, Decline drops it unanswered
  const consent = createWalletConsent<{ shown: WalletShown; request: SignedWalletRequest }>(
    props.runner,
    (pending) => answerSigned(pending.request),
    'same-device',
  );

  const offersAnnexC = () => walletOffer(props.session, 'org_iso_mdoc') !== undefined;
  // A wallet on this device is offered in sandbox too (issue 26, ADR 0049): real wallets holding test credentials
  // (the EU test PID, Google's sandbox ID pass, Apple's developer profile) answer once the operator trusts their
  // test issuer for the sandbox; the sandbox test wallet stays beside it.
  const offerBrowserWallet = () => hasDigitalCredentials();
  const business = () => props.session.business.name;

  return (
    <div data-testid={`step-${props.step.primitive}`}>
      <h2 ref={focusPanel} tabIndex={-1}>
        {stepHeading(props.step)}
      </h2>
      <StepContent session={props.session} step={props.step} shown={shown()} onShownToEnd={onShownToEnd} />
      <p>{t('step.walletShows', { business: business() })}</p>
      <Show when={!allShown()}>
        <p class="gate-hint" id="share-gate" data-testid="share-gate">
          {t('viewer.gate')}
        </p>
      </Show>

      <Show
        when={requested()}
        fallback={
          <>
            <ActionFeedback runner={props.runner} place="share" triesLeft={props.session.triesLeft} />
            <button
              type="button"
              class="button"
              data-testid="share-wallet"
              disabled={props.runner.busy() || !allShown()}
              aria-describedby={allShown() ? undefined : 'share-gate'}
              onClick={start}
            >
              {props.runner.busy() ? t('step.preparing') : t('step.share')}
            </button>
          </>
        }
      >
        <Show when={offerBrowserWallet()}>
          <ActionFeedback runner={props.runner} place="browser-wallet" triesLeft={props.session.triesLeft} />
          <button
            type="button"
            class="button"
            data-testid="share-browser-wallet"
            disabled={props.runner.busy()}
            onClick={shareWithBrowserWallet}
          >
            {t('step.openWallet')}
          </button>
          <Show when={waiting()}>
            <p role="status" data-testid="device-wallet-waiting">
              {t('step.deviceWalletWaiting')}
            </p>
          </Show>
          <Show when={props.session.environment === 'sandbox'}>
            <p class="muted" data-testid="device-wallet-sandbox-note">
              {t('step.deviceWalletSandbox')}
            </p>
          </Show>
        </Show>

        <Show when={personas()?.length ? personas() : undefined}>
          {(list) => (
            <fieldset class="sandbox-wallet">
              <legend>{t('step.sandboxWallet')}</legend>
              <p class="muted">{t('step.sandboxNote')}</p>
              <label for="persona">{t('step.testPerson')}</label>
              <select
                id="persona"
                ref={focusOnAppear}
                data-testid="persona"
                value={persona()}
                disabled={props.runner.busy()}
                onChange={(e) => setPersona(e.currentTarget.value)}
              >
                <For each={list()}>{(p) => <option value={p.id}>{personaText(p, 'label')}</option>}</For>
              </select>
              <Show when={list().find((p) => p.id === persona())}>
                {(p) => <p class="persona-note">{personaText(p(), 'note')}</p>}
              </Show>
              <Show when={offersAnnexC()}>
                <label for="sandbox-protocol" class="sandbox-protocol-label">
                  {t('step.sandboxProtocol')}
                </label>
                <select
                  id="sandbox-protocol"
                  data-testid="sandbox-protocol"
                  value={sandboxProtocol()}
                  disabled={props.runner.busy()}
                  onChange={(e) =>
                    setSandboxProtocol(
                      e.currentTarget.value === ANNEX_C_PROTOCOL ? ANNEX_C_PROTOCOL : 'openid4vp',
                    )
                  }
                >
                  <option value="openid4vp">{t('step.protocolOpenId4Vp')}</option>
                  <option value={ANNEX_C_PROTOCOL}>{t('step.protocolAnnexC')}</option>
                </select>
              </Show>
              <ActionFeedback runner={props.runner} place="same-device" triesLeft={props.session.triesLeft} />
              <WalletConsentGate id="same-device" consent={consent} busy={props.runner.busy()}>
                <button
                  type="button"
                  class="button"
                  data-testid="share-reference-wallet"
                  disabled={props.runner.busy() || !persona()}
                  onClick={shareWithReferenceWallet}
                >
                  {props.runner.busy() ? t('step.sharing') : t('step.shareTest')}
                </button>
              </WalletConsentGate>
            </fieldset>
          )}
        </Show>

        <CrossDevice
          session={props.session}
          runner={props.runner}
          sandboxPersona={() => (personas()?.length ? persona() : undefined)}
        />
      </Show>
    </div>
  );
}

/** A test person's name or note in the page's language; the server's English text for one we have no copy for. */
function personaText(p: SandboxPersona, part: 'label' | 'note'): string {
  const key = `persona.${p.id}.${part}`;
  return hasMessage(key) ? t(key) : part === 'label' ? p.label : p.description;
}
