// Wire types of the internal hosted transport routes (/t/sessions/*) and the sandbox reference wallet: plain
// JSON routes that are neither GraphQL nor in the public OpenAPI contract, so there is nothing to generate them
// from; they stay small and explicit here (ADR 0018). Everything the page reads over GraphQL is typed from
// schema/schema.graphql instead (src/graphql/generated.ts).

export type SessionStatus =
  | 'created'
  | 'in_progress'
  | 'awaiting_decision'
  | 'completed'
  | 'stopped'
  | 'failed'
  | 'expired';

export type Primitive = 'identify' | 'age_verify' | 'sign' | 'attestation';

/** A sign step's document as the page shows it before signing (the bytes download separately). */
export interface ProjectionDocument {
  position: number;
  label: string;
  sha256: string;
  size: number;
  content_type: string;
}

export interface ProjectionStep {
  stage: number;
  primitive: Primitive;
  claims?: string[];
  threshold?: number;
  /** attestation: the terms to approve and their SHA-256 (hex). */
  terms?: string;
  terms_sha256?: string;
  /** sign: the documents to sign. */
  documents?: ProjectionDocument[];
}

/** Status projection of a session: no results, no personal data. */
export interface SessionProjection {
  id: string;
  status: SessionStatus;
  environment: 'sandbox' | 'production';
  /**
   * accent_color: the business's `#rrggbb` (at least 4.5:1 against white) when branded; logo_url: the path
   * of its logo on this service when one is set (ADR 0019).
   */
  business: { name: string; accent_color?: string; logo_url?: string };
  workflow: { name: string };
  steps: ProjectionStep[];
  current_stage: number;
  completed_stages: number[];
  expires: string;
  /** The deadline of what the person is doing now: the step window once a step started, else the link's. */
  deadline?: string;
  deadline_kind?: 'step' | 'link';
  /** The service's clock at this answer: the countdown runs against it, not against the device clock. */
  server_time: string;
  binding: 'none' | 'this_browser' | 'other_browser';
  /** Only once the session ended: the business's page to go back to (ADR 0019). */
  return_url?: string;
  /** In progress, after a refused wallet answer for this step: how many answers it still accepts. */
  tries_left?: number;
}

export interface SandboxPersona {
  id: string;
  label: string;
  description: string;
}

export interface WalletRequest {
  request_id: string;
  /** OpenID4VP authorization request object, handed unchanged to the wallet. */
  request: Record<string, unknown>;
  protocol: 'openid4vp-v1-unsigned';
  expires: string;
  sandbox_personas: SandboxPersona[] | null;
}

/** The signed request for the Digital Credentials API: data = {request: <JAR>}, answered with {response: <JWE>}. */
export interface SignedWalletRequest {
  request_id: string;
  protocol: 'openid4vp-v1-signed';
  request: { request: string };
  expires: string;
  sandbox_personas: SandboxPersona[] | null;
}

/** An ISO 18013-7 Annex C request (org-iso-mdoc): base64url CBOR DeviceRequest and EncryptionInfo. */
export interface AnnexCWalletRequest {
  request_id: string;
  protocol: 'org-iso-mdoc';
  request: { deviceRequest: string; encryptionInfo: string };
  expires: string;
  sandbox_personas: SandboxPersona[] | null;
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

export const TERMINAL_STATUSES: readonly SessionStatus[] = ['completed', 'stopped', 'failed', 'expired'];

/** How a step runs a user action (the session view owns it; steps receive it). */
export interface ActionRunner {
  busy: () => boolean;
  /** Runs one user action; a returned projection becomes the page state, a failure is shown and the state re-read. */
  run: (action: () => Promise<SessionProjection | undefined>) => Promise<void>;
}
