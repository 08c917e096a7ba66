// The signer page's session comes from the GraphQL schema (graphql/generated.ts: SignerSession and its steps,
// documents, wallet request offers and sandbox persons); the answers of the wallet-protocol routes on /t from
// their zod contracts (transport.generated.ts, ADR 0043). What stays here: the sandbox reference wallet's
// payloads, the problem body and UI-local types.
import type { SignerSessionFieldsFragment } from './graphql/generated';
import type { MessageKey } from './i18n/en';

/** The session as the page shows it (GraphQL signerSession). */
export type SignerSession = SignerSessionFieldsFragment;
export type SignerStep = SignerSession['steps'][number];
export type SignerDocument = NonNullable<SignerStep['documents']>[number];
export type SandboxPersona = SignerSession['sandboxPersonas'][number];
export type WalletRequestOffer = SignerSession['walletRequests'][number];

// The /t wallet-protocol payloads are generated from the routes' zod contracts (ADR 0043).
export type {
  AnnexCWalletRequest,
  CrossDeviceRequest,
  SignedWalletRequest,
  WalletRequest,
} from './transport.generated';

/** What the sandbox wallet's cross-device exchange got back from our response_uri. */
/** What the sandbox wallet shows for a request it verified (POST /sandbox/wallet/read, ADR 0040). */
export interface WalletShown {
  /** From the request's registration certificate (verifier_info); null when it carries none. */
  relying_party: { name: string; purpose: string | null; via?: string | null } | null;
  /** The hosted verifier the answer goes to, acting for the relying party. */
  intermediary: string;
  claims: string[];
  /** Sign step: the documents the wallet signs (from the request's transaction data). */
  documents?: { label: string; sha256: string }[];
  /** Attestation step: the terms the wallet signs its approval of. */
  terms?: { text: string; sha256: string } | null;
}

export interface SandboxCrossDeviceAnswer {
  response_uri_status: number;
  response_uri_body?: Problem;
}

/** What a wallet answers (OpenID4VP response parameters), forwarded unchanged to the server. */
export interface WalletResponse {
  vp_token: unknown;
  [key: string]: unknown;
}

export interface ReferenceWalletAnswer {
  response: WalletResponse;
}

/** RFC 9457 problem body as the server sends it. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  request_id?: string;
}

/** A failure as the page shows it: a message of the catalogue (by the server's code) and the request id. */
export interface UserError {
  key: MessageKey;
  requestId?: string;
}

/** How a step runs a user action (the session view owns it; steps receive it). */
export interface ActionRunner {
  busy: () => boolean;
  /**
   * Runs one user action; a returned session becomes the page state, a failure is shown and the state re-read.
   * `place` names where the action was (the button's group): its failure is shown there (ActionFeedback), not
   * at the top of the page, so the person sees and hears it where they look (issue 29).
   */
  run: (action: () => Promise<SignerSession | undefined>, place?: string) => Promise<void>;
  /** The last action's failure (cleared when the next action starts). */
  error: () => UserError | undefined;
  /** Where the last action was (`place` of run), or undefined. */
  place: () => string | undefined;
}
