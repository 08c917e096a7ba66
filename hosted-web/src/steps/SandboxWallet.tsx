// The service's sandbox test wallet (IdentifyStep): a test person, the protocol it answers over (Annex C shows
// the Safari/Apple Wallet path), and its consent card read from the signed request (ADR 0040): Share answers
// the request it read, Decline drops it unanswered.
import { createSignal, For, Show } from 'solid-js';
import {
  createWalletRequest,
  referenceWalletRespond,
  sandboxWalletRead,
  sandboxWalletRespondSigned,
  submitWalletResponse,
  walletOffer,
} from '../api';
import { ActionFeedback } from '../components/ActionFeedback';
import { focusOnAppear } from '../components/focus';
import { hasMessage, t } from '../i18n';
import type {
  ActionRunner,
  AnnexCWalletRequest,
  SandboxPersona,
  SignedWalletRequest,
  SignerSession,
  WalletRequest,
  WalletShown,
} from '../types';
import { ANNEX_C_PROTOCOL } from './DcApi';
import { createWalletConsent, WalletConsentGate } from './WalletConsent';

export function SandboxWallet(props: {
  session: SignerSession;
  runner: ActionRunner;
  personas: readonly SandboxPersona[];
  /** The chosen test person (IdentifyStep keeps it: the cross-device panel answers as the same person). */
  persona: string;
  setPersona: (id: string) => void;
  /** The step's unsigned request, handed over once (a retry fetches a fresh one). */
  takeRequest: () => Promise<WalletRequest>;
}) {
  // the protocol the test wallet answers over (Annex C shows the Safari/Apple Wallet path without one)
  const [sandboxProtocol, setSandboxProtocol] = createSignal<'openid4vp' | 'org-iso-mdoc'>('openid4vp');
  const offersAnnexC = () => walletOffer(props.session, 'org_iso_mdoc') !== undefined;
  const shareWithReferenceWallet = () =>
    props.runner.run(async () => {
      consent.reset();
      if (offersAnnexC() && sandboxProtocol() === ANNEX_C_PROTOCOL) {
        // ISO 18013-7 Annex C: the reference wallet answers the DeviceRequest as Safari's wallet would
        const iso = await createWalletRequest<AnnexCWalletRequest>(
          walletOffer(props.session, 'org_iso_mdoc') as NonNullable<ReturnType<typeof walletOffer>>,
        );
        const answer = await referenceWalletRespond(props.persona, iso.request);
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
      const req = await props.takeRequest();
      const answer = await referenceWalletRespond(props.persona, req.request);
      return submitWalletResponse(props.session.id, req.request_id, answer.response);
    }, 'same-device');
  const answerSigned = async (signed: SignedWalletRequest) => {
    const answer = await sandboxWalletRespondSigned(props.persona, signed.request);
    return submitWalletResponse(props.session.id, signed.request_id, answer);
  };
  // the consent card of the sandbox wallet: Share answers the request it read, Decline drops it unanswered
  const consent = createWalletConsent<{ shown: WalletShown; request: SignedWalletRequest }>(
    props.runner,
    (pending) => answerSigned(pending.request),
    'same-device',
  );

  return (
    <fieldset class="sandbox-wallet">
      <legend>{t('step.sandboxWallet')}</legend>
      <p class="muted">{t('step.sandboxNote')}</p>
      <label for="persona">{t('step.testPerson')}</label>
      <select
        id="persona"
        ref={focusOnAppear}
        data-testid="persona"
        value={props.persona}
        disabled={props.runner.busy()}
        onChange={(e) => props.setPersona(e.currentTarget.value)}
      >
        <For each={props.personas}>{(p) => <option value={p.id}>{personaText(p, 'label')}</option>}</For>
      </select>
      <Show when={props.personas.find((p) => p.id === props.persona)}>
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
            setSandboxProtocol(e.currentTarget.value === ANNEX_C_PROTOCOL ? ANNEX_C_PROTOCOL : 'openid4vp')
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
          disabled={props.runner.busy() || !props.persona}
          onClick={shareWithReferenceWallet}
        >
          {props.runner.busy() ? t('step.sharing') : t('step.shareTest')}
        </button>
      </WalletConsentGate>
    </fieldset>
  );
}

/** A test person's name or note in the page's language; the server's English text for one we have no copy for. */
function personaText(p: SandboxPersona, part: 'label' | 'note'): string {
  const key = `persona.${p.id}.${part}`;
  return hasMessage(key) ? t(key) : part === 'label' ? p.label : p.description;
}
