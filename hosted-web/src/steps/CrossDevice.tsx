// Cross-device sharing for a wallet step: a QR code (rendered by the server as SVG) and an `openid4vp://` link
// that carry only the verifier's client_id and a request_uri; the wallet fetches the signed request there and
// answers the server directly. This page never sees the answer: it learns of completion from the status
// projection it already polls. In sandbox, "Open in sandbox wallet" lets the reference wallet do the same
// exchange over HTTP as the chosen test person.
import { createSignal, onMount, Show } from 'solid-js';
import {
  ApiError,
  createWalletRequest,
  getSession,
  sandboxWalletCrossDevice,
  sandboxWalletRead,
  walletOffer,
} from '../api';
import { ActionFeedback } from '../components/ActionFeedback';
import { ErrorAlert } from '../components/ErrorAlert';
import { toUserError, type UserError } from '../errors';
import { t } from '../i18n';
import type { ActionRunner, CrossDeviceRequest, SignerSession, WalletShown } from '../types';
import { createWalletConsent, WalletConsentGate } from './WalletConsent';

export function CrossDevice(props: {
  session: SignerSession;
  runner: ActionRunner;
  /** The chosen sandbox test person; the sandbox button shows only when set. */
  sandboxPersona?: () => string | undefined;
}) {
  const [request, setRequest] = createSignal<CrossDeviceRequest>();
  const [loading, setLoading] = createSignal(false);
  const [error, setError] = createSignal<UserError>();

  const load = async () => {
    if (loading()) return;
    setLoading(true);
    setError(undefined);
    try {
      const offer = walletOffer(props.session, 'cross_device');
      if (!offer) throw new ApiError('wallet_unavailable', 0);
      setRequest(await createWalletRequest<CrossDeviceRequest>(offer));
    } catch (err) {
      setError(toUserError(err));
    } finally {
      setLoading(false);
    }
  };
  onMount(() => void load());

  const qrSrc = (svg: string) => `data:image/svg+xml;base64,${btoa(svg)}`;
  // The sandbox wallet reads the request behind the link first (as a wallet does before it asks the person);
  // with a registration certificate in it, its consent card shows who asks and why (ADR 0040).
  const consent = createWalletConsent<{ shown: WalletShown }>(
    props.runner,
    () => answerInSandboxWallet(),
    'cross-device',
  );
  const openInSandboxWallet = () =>
    props.runner.run(async () => {
      consent.reset();
      const req = request();
      if (!req || !props.sandboxPersona?.()) return undefined;
      const shown = await sandboxWalletRead({ uri: req.uri });
      if (shown.relying_party) {
        consent.ask({ shown });
        return undefined;
      }
      return answerInSandboxWallet();
    }, 'cross-device');
  const answerInSandboxWallet = async () => {
    const req = request();
    const persona = props.sandboxPersona?.();
    if (!req || !persona) return undefined;
    const answer = await sandboxWalletCrossDevice(persona, req.uri);
    if (answer.response_uri_status !== 200) {
      // the code is used up by a refused answer: show a fresh one next to the reason
      void load();
      throw new ApiError(answer.response_uri_body?.code ?? 'internal_error', answer.response_uri_status);
    }
    return getSession(props.session.id);
  };

  return (
    <section class="cross-device" data-testid="cross-device" aria-labelledby="cross-device-heading">
      <h3 id="cross-device-heading">{t('cross.title')}</h3>
      <Show when={error()}>{(e) => <ErrorAlert error={e()} />}</Show>
      <Show when={request()} fallback={<p class="muted">{loading() ? t('cross.preparing') : ''}</p>}>
        {(req) => (
          <>
            <p>{t('cross.scan')}</p>
            <img
              class="qr"
              data-testid="cross-device-qr"
              src={qrSrc(req().qr_svg)}
              alt={t('cross.qrAlt')}
              width="220"
              height="220"
            />
            <p>
              <a data-testid="cross-device-link" href={req().uri}>
                {t('cross.openHere')}
              </a>
            </p>
            <Show when={props.sandboxPersona?.()}>
              <ActionFeedback
                runner={props.runner}
                place="cross-device"
                triesLeft={props.session.triesLeft}
              />
              <WalletConsentGate id="cross-device" consent={consent} busy={props.runner.busy()}>
                <button
                  type="button"
                  class="button"
                  data-testid="open-sandbox-wallet"
                  disabled={props.runner.busy()}
                  onClick={openInSandboxWallet}
                >
                  {t('cross.openSandbox')}
                </button>
              </WalletConsentGate>
            </Show>
          </>
        )}
      </Show>
      <button
        type="button"
        class="button secondary"
        data-testid="cross-device-refresh"
        disabled={loading()}
        onClick={() => void load()}
      >
        {t('cross.newCode')}
      </button>
    </section>
  );
}
