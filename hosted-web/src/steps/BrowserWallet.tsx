// The browser's wallet on this device (IdentifyStep): one Digital Credentials API call with every request the
// step can be answered with, OpenID4VP (signed when the browser allows it) and, where the session offers it
// for this step (the server's Annex C rule), org-iso-mdoc. The browser picks one; the answer goes to that
// protocol's request id. While the wallet's own screen is up, the page says so.
import { createSignal, Show } from 'solid-js';
import { ApiError, createWalletRequest, submitWalletResponse, walletOffer } from '../api';
import { ActionFeedback } from '../components/ActionFeedback';
import { t } from '../i18n';
import type {
  ActionRunner,
  AnnexCWalletRequest,
  SignedWalletRequest,
  SignerSession,
  WalletRequest,
} from '../types';
import { allowsAnnexC, askBrowserWallet, preferredProtocol, SIGNED_PROTOCOL } from './DcApi';

export function BrowserWallet(props: {
  session: SignerSession;
  runner: ActionRunner;
  /** The step's unsigned request, handed over once (a retry fetches a fresh one). */
  takeRequest: () => Promise<WalletRequest>;
}) {
  // a wallet on this device has the request and the person has not finished there yet (ADR 0049)
  const [waiting, setWaiting] = createSignal(false);
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
        const req = await props.takeRequest();
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

  return (
    <>
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
    </>
  );
}
