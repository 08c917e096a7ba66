// Wire types of the internal hosted transport routes (/t/sessions/*) and the sandbox reference wallet.
// Not public API; kept in step with the server's projection by hand until schema/ carries them.

export type SessionStatus =
  | 'created'
  | 'in_progress'
  | 'awaiting_decision'
  | 'completed'
  | 'stopped'
  | 'failed'
  | 'expired';

export type Primitive = 'identify' | 'age_verify' | 'sign' | 'attestation';

export interface ProjectionStep {
  stage: number;
  primitive: Primitive;
  claims?: string[];
  threshold?: number;
}

/** Status projection of a session: no results, no personal data. */
export interface SessionProjection {
  id: string;
  status: SessionStatus;
  environment: 'sandbox' | 'production';
  business: { name: string };
  workflow: { name: string };
  steps: ProjectionStep[];
  current_stage: number;
  completed_stages: number[];
  expires: string;
  binding: 'none' | 'this_browser' | 'other_browser';
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
