// A wallet step (every primitive uses the same transport; StepContent shows what is asked): fetch the wallet request for the
// current step, let a wallet answer it, submit the answer. Wallets: the browser's Digital Credentials API when
// present (BrowserWallet.tsx, DcApi.ts: signed request when the browser allows it), a wallet on another device
// (CrossDevice.tsx: QR code / openid4vp:// link), and in sandbox the service's reference wallet with test
// personas (SandboxWallet.tsx). A sign step offers them once every document was shown to its end
// (documents-shown.ts).
import { createSignal, Show } from 'solid-js';
import { ApiError, createWalletRequest, walletOffer } from '../api';
import { ActionFeedback } from '../components/ActionFeedback';
import { focusPanel } from '../components/focus';
import { t } from '../i18n';
import type { ActionRunner, SignerSession, SignerStep, WalletRequest } from '../types';
import { BrowserWallet } from './BrowserWallet';
import { CrossDevice } from './CrossDevice';
import { hasDigitalCredentials } from './DcApi';
import { createDocumentsShown } from './documents-shown';
import { SandboxWallet } from './SandboxWallet';
import { StepContent, stepHeading } from './StepContent';

// A request this close to its expiry is replaced rather than handed to a wallet that may take a while.
const REQUEST_MARGIN_MS = 10_000;

export function IdentifyStep(props: { session: SignerSession; step: SignerStep; runner: ActionRunner }) {
  // The sandbox test persons that can answer this step come with the session (GraphQL). Taken once: this
  // component lives for one step, and a poll's new list must not rebuild the choice under the person's hand.
  const stepPersonas = props.session.sandboxPersonas;
  const personas = () => stepPersonas;
  const [persona, setPersona] = createSignal(stepPersonas[0]?.id ?? '');
  const [requested, setRequested] = createSignal(false);
  // sign: documents shown to their end on this page and recorded by the server; the wallet is offered after all
  // (a reload starts from what the server recorded, ADR 0029: Share stays enabled)
  const { shown, onShownToEnd, allShown } = createDocumentsShown(props);
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
          <BrowserWallet session={props.session} runner={props.runner} takeRequest={takeRequest} />
        </Show>
        <Show when={personas()?.length ? personas() : undefined}>
          {(list) => (
            <SandboxWallet
              session={props.session}
              runner={props.runner}
              personas={list()}
              persona={persona()}
              setPersona={setPersona}
              takeRequest={takeRequest}
            />
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
