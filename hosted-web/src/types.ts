// The signer page's session comes from the GraphQL schema (graphql/generated.ts: SignerSession and its steps,
// documents, wallet request offers and sandbox persons). What stays here: the answers of the wallet-protocol
// routes on /t (single-use wallet requests, the wallet response), which are neither GraphQL nor in the public
// OpenAPI contract (ADR 0018, ADR 0041), and UI-local types.
import type { SignerSessionFieldsFragment } from './graphql/generated';

/** The session as the page shows it (GraphQL signerSession). */
export type SignerSession = SignerSessionFieldsFragment;
export type SignerStep = SignerSession['steps'][number];
export type SignerDocument = NonNullable<SignerStep['documents']>[number];
export type SandboxPersona = SignerSession['sandboxPersonas'][number];
export type WalletRequestOffer = SignerSession['walletRequests'][number];

/** An unsigned OpenID4VP request (POST .../wallet-request): the authorization request object, unchanged. */
export interface WalletRequest {
  request_id: string;
  request: Record<string, unknown>;
  protocol: 'openid4vp-v1-unsigned';
  expires: string;
}

/** The signed request for the Digital Credentials API: data = {request: <JAR>}, answered with {response: <JWE>}. */
export interface SignedWalletRequest {
  request_id: string;
  protocol: 'openid4vp-v1-signed';
  request: { request: string };
  expires: string;
}

/** An ISO 18013-7 Annex C request (org-iso-mdoc): base64url CBOR DeviceRequest and EncryptionInfo. */
export interface AnnexCWalletRequest {
  request_id: string;
  protocol: 'org-iso-mdoc';
  request: { deviceRequest: string; encryptionInfo: string };
  expires: string;
}

/** A cross-device request: the openid4vp:// link (client_id + request_uri) and its QR code as SVG. */
export interface CrossDeviceRequest {
  request_id: string;
  protocol: 'openid4vp';
  uri: string;
  qr_svg: string;
  expires: string;
}

/** What the sandbox wallet's cross-device exchange got back from our response_uri. */
/** What the sandbox wallet shows for a request it verified (POST /sandbox/wallet/read, ADR 0040). */
export interface WalletShown {
  /** From the request's registration certificate (verifier_info); null when it carries none. */
  relying_party: { name: string; purpose: string | null } | null;
  /** The hosted verifier the answer goes to, acting for the relying party. */
  intermediary: string;
  claims: string[];
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

/** How a step runs a user action (the session view owns it; steps receive it). */
export interface ActionRunner {
  busy: () => boolean;
  /** Runs one user action; a returned session becomes the page state, a failure is shown and the state re-read. */
  run: (action: () => Promise<SignerSession | undefined>) => Promise<void>;
}
