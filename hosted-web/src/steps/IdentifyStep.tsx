// A wallet step (identify, and age_verify which uses the same transport): fetch the wallet request for the
// current step, let a wallet answer it, submit the answer. Wallets: the browser's Digital Credentials API when
// present, and in sandbox the service's reference wallet with test personas.
import { createSignal, For, Show } from 'solid-js';
import { ApiError, createWalletRequest, referenceWalletRespond, submitWalletResponse } from '../api';
import { focusOnAppear, focusPanel } from '../components/focus';
import type { ActionRunner } from '../routes/SessionView';
import type {
  ProjectionStep,
  SandboxPersona,
  SessionProjection,
  WalletRequest,
  WalletResponse,
} from '../types';

// A request this close to its expiry is replaced rather than handed to a wallet that may take a while.
const REQUEST_MARGIN_MS = 10_000;

const hasDigitalCredentials = () =>
  typeof window !== 'undefined' && 'DigitalCredential' in window && !!navigator.credentials;

/** Asks a wallet on this device through the W3C Digital Credentials API. */
async function askBrowserWallet(request: WalletRequest): Promise<WalletResponse> {
  // The `digital` member is not in TypeScript's DOM lib yet, hence the casts on the way in and out.
  const options = {
    digital: { requests: [{ protocol: request.protocol, data: request.request }] },
    // The request is worthless after it expires; stop waiting then so the page does not stay busy.
    signal: AbortSignal.timeout(Math.max(Date.parse(request.expires) - Date.now(), 1000)),
  };
  let credential: (Credential & { data?: unknown }) | null;
  try {
    credential = (await navigator.credentials.get(options as CredentialRequestOptions)) as
      | (Credential & { data?: unknown })
      | null;
  } catch (err) {
    const cancelled =
      err instanceof DOMException && (err.name === 'AbortError' || err.name === 'NotAllowedError');
    throw new ApiError(cancelled ? 'wallet_cancelled' : 'wallet_unavailable', 0);
  }
  const data = credential?.data;
  if (!data || typeof data !== 'object') throw new ApiError('wallet_unavailable', 0);
  return data as WalletResponse;
}

export function IdentifyStep(props: {
  session: SessionProjection;
  step: ProjectionStep;
  runner: ActionRunner;
}) {
  const [personas, setPersonas] = createSignal<SandboxPersona[] | null>();
  const [persona, setPersona] = createSignal('');
  const [requested, setRequested] = createSignal(false);
  // A wallet request is single-use: it is dropped once handed to a wallet, so a retry fetches a fresh one.
  let request: WalletRequest | undefined;

  const freshRequest = async (): Promise<WalletRequest> => {
    if (request && Date.parse(request.expires) - REQUEST_MARGIN_MS > Date.now()) return request;
    const next = await createWalletRequest(props.session.id);
    request = next;
    setPersonas(next.sandbox_personas);
    if (next.sandbox_personas?.length && !persona()) setPersona(next.sandbox_personas[0].id);
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
    });
  const shareWithBrowserWallet = () =>
    props.runner.run(async () => {
      const req = await takeRequest();
      return submitWalletResponse(props.session.id, req.request_id, await askBrowserWallet(req));
    });
  const shareWithReferenceWallet = () =>
    props.runner.run(async () => {
      const req = await takeRequest();
      const answer = await referenceWalletRespond(persona(), req.request);
      return submitWalletResponse(props.session.id, req.request_id, answer.response);
    });

  const isAge = () => props.step.primitive === 'age_verify';
  // Sandbox credentials live only in the reference wallet, so a device wallet is offered in production only.
  const offerBrowserWallet = () => props.session.environment === 'production' && hasDigitalCredentials();
  const business = () => props.session.business.name;

  return (
    <div data-testid={`step-${props.step.primitive}`}>
      <h2 ref={focusPanel} tabIndex={-1}>
        {isAge() ? 'Confirm your age' : 'Share your identity'}
      </h2>
      <p>
        Your wallet shows exactly what {business()} asks for, and nothing is shared until you confirm it
        there.
      </p>

      <Show
        when={requested()}
        fallback={
          <button
            type="button"
            class="button"
            data-testid="share-wallet"
            disabled={props.runner.busy()}
            onClick={start}
          >
            {props.runner.busy() ? 'Preparing…' : 'Share with wallet'}
          </button>
        }
      >
        <Show when={offerBrowserWallet()}>
          <button
            type="button"
            class="button"
            data-testid="share-browser-wallet"
            disabled={props.runner.busy()}
            onClick={shareWithBrowserWallet}
          >
            Open my wallet
          </button>
        </Show>

        <Show when={personas()?.length ? personas() : undefined}>
          {(list) => (
            <fieldset class="sandbox-wallet">
              <legend>Sandbox test wallet</legend>
              <p class="muted">
                Pick a test person. Their credential comes from the sandbox issuer; no real data.
              </p>
              <label for="persona">Test person</label>
              <select
                id="persona"
                ref={focusOnAppear}
                data-testid="persona"
                value={persona()}
                disabled={props.runner.busy()}
                onChange={(e) => setPersona(e.currentTarget.value)}
              >
                <For each={list()}>{(p) => <option value={p.id}>{p.label}</option>}</For>
              </select>
              <Show when={list().find((p) => p.id === persona())?.description}>
                {(description) => <p class="persona-note">{description()}</p>}
              </Show>
              <button
                type="button"
                class="button"
                data-testid="share-reference-wallet"
                disabled={props.runner.busy() || !persona()}
                onClick={shareWithReferenceWallet}
              >
                {props.runner.busy() ? 'Sharing…' : 'Share with test wallet'}
              </button>
            </fieldset>
          )}
        </Show>

        <Show when={!offerBrowserWallet() && !personas()?.length}>
          <p class="notice" data-testid="no-wallet">
            This browser cannot reach a wallet. Open this link in a browser on the phone that holds your
            wallet.
          </p>
        </Show>
      </Show>
    </div>
  );
}
