// Owns the one closed list of error codes and their mapping to HTTP status and GraphQL extensions.
// Client text (title/detail) is separate from internal detail, which never leaves the server.

export const ERROR_CODES = {
  // request and auth
  unauthenticated: { status: 401, title: 'Missing or invalid API key' },
  forbidden: { status: 403, title: 'Not allowed' },
  not_found: { status: 404, title: 'Not found' },
  validation_failed: { status: 400, title: 'Invalid request' },
  invalid_json: { status: 400, title: 'Malformed JSON body' },
  unsupported_media_type: { status: 415, title: 'Unsupported content type' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal error' },
  // workflows and sessions
  workflow_not_found: { status: 404, title: 'Workflow not found' },
  workflow_not_published: { status: 409, title: 'Workflow has no published revision' },
  workflow_invalid: { status: 400, title: 'Workflow definition is invalid' },
  workflow_api_only: {
    status: 403,
    title: 'This workflow takes sessions from the API only (an API key), not from the dashboard',
  },
  webhook_endpoint_required: { status: 409, title: 'Configure a webhook endpoint first' },
  webhook_url_invalid: { status: 400, title: 'Webhook URL is not allowed' },
  idempotency_in_progress: { status: 409, title: 'A request with this Idempotency-Key is still in progress' },
  session_state_conflict: { status: 409, title: 'The session is not in a state that allows this' },
  session_expired: { status: 410, title: 'The session has expired' },
  session_bound_elsewhere: { status: 403, title: 'The session was started in another browser' },
  redirect_other_browser: {
    status: 403,
    title: 'The wallet returned to another browser than the one that started the session',
  },
  step_window_expired: { status: 410, title: 'The step time window has passed' },
  documents_not_shown: {
    status: 409,
    title: 'Every document of this sign step must be shown to the end before the wallet is asked',
  },
  documents_required: {
    status: 400,
    title: 'This workflow has a sign step: upload its documents as multipart/form-data file parts',
  },
  route_unavailable: { status: 409, title: 'No credential route supports this workflow in this environment' },
  protocol_not_offered: {
    status: 409,
    title:
      'This step is not offered over this wallet protocol (org-iso-mdoc cannot bind its transaction data)',
  },
  // verification (wallet responses)
  presentation_malformed: { status: 422, title: 'The wallet response is malformed' },
  request_not_found: { status: 422, title: 'The wallet request is unknown or already used' },
  gw_metadata_mismatch: {
    status: 400,
    title:
      'The Google relying-party metadata does not match the certificate (extension 1.3.6.1.4.1.11129.10.1)',
  },
  wallet_metadata_invalid: {
    status: 400,
    title: 'The wallet_metadata posted to request_uri is malformed or asks for what we cannot do',
  },
  issuer_untrusted: { status: 422, title: 'The credential issuer is not trusted' },
  credential_signature_invalid: { status: 422, title: 'The credential signature is invalid' },
  credential_type_invalid: { status: 422, title: 'The credential type is not accepted' },
  credential_expired: { status: 422, title: 'The credential has expired' },
  credential_revoked: { status: 422, title: 'The credential has been revoked' },
  credential_suspended: { status: 422, title: 'The credential is suspended' },
  status_check_failed: { status: 422, title: 'The credential status could not be verified' },
  disclosure_invalid: { status: 422, title: 'A selective disclosure does not match the credential' },
  key_binding_missing: { status: 422, title: 'The key-binding proof is missing' },
  key_binding_invalid: { status: 422, title: 'The key-binding proof is invalid' },
  nonce_mismatch: { status: 422, title: 'The presentation answers another request (nonce)' },
  audience_mismatch: { status: 422, title: 'The presentation was made for another verifier (aud)' },
  key_binding_stale: { status: 422, title: 'The key-binding proof is outside the accepted time window' },
  sd_hash_mismatch: { status: 422, title: 'The key-binding proof does not cover this presentation' },
  claims_missing: { status: 422, title: 'The presentation does not answer the query' },
  holder_mismatch: {
    status: 422,
    title: 'This credential belongs to someone other than the person who completed the first step',
  },
  response_not_encrypted: { status: 422, title: 'This request needs an encrypted response (JWE)' },
  response_decryption_failed: {
    status: 422,
    title: 'The response is not encrypted to this request’s key',
  },
  transaction_data_missing: {
    status: 422,
    title: 'The key-binding proof does not cover the transaction data (documents or terms)',
  },
  transaction_data_mismatch: {
    status: 422,
    title: 'The key-binding proof covers other transaction data than was sent',
  },
  issuer_certificate_invalid_at_signing: {
    status: 422,
    title: 'The issuer signed the credential outside the validity period of its signing certificate',
  },
  device_signed_unauthorized: {
    status: 422,
    title: 'The mdoc issuer does not authorize its device key to sign this data (KeyAuthorizations)',
  },
  // ops (issue 11): readiness
  not_ready: { status: 503, title: 'The service is not ready to take traffic' },
  // accounts: dashboard users, sign-in, invitations, API keys (issue 9)
  dashboard_user_required: {
    status: 403,
    title: 'This operation needs a signed-in dashboard user; API keys are for /v1 and the session mirror',
  },
  role_insufficient: { status: 403, title: 'Your role does not allow this in this environment' },
  csrf_token_invalid: { status: 403, title: 'Missing or invalid X-CSRF-Token header' },
  api_key_scope_missing: { status: 403, title: 'This API key lacks the scope this endpoint needs' },
  invitation_invalid: { status: 410, title: 'The invitation link is invalid, used, revoked or expired' },
  sign_in_link_invalid: { status: 410, title: 'The sign-in link is invalid, used or expired' },
  passkey_invalid: { status: 401, title: 'The passkey could not be verified' },
  email_in_use: { status: 409, title: 'This email address already has an account' },
  // hardening (issue 7): the database cannot be reached, or (issue 27) no pool connection became free in
  // DB_ACQUIRE_TIMEOUT_MS; retry after Retry-After seconds
  service_unavailable: { status: 503, title: 'The service is temporarily unavailable' },
  // receipts (the signer's record: receipt PDF, originals, emailed receipt, close online access)
  receipt_not_available: { status: 409, title: 'No step of this session has completed yet' },
  receipt_access_ended: {
    status: 410,
    title:
      'Online access to this session’s receipt and originals has ended (48 hours after the session ended)',
  },
  receipt_access_closed: { status: 410, title: 'Online access to this session’s materials was closed' },
  receipt_code_invalid: { status: 422, title: 'The code is not correct' },
  receipt_code_expired: { status: 410, title: 'The code has expired or was already used; request a new one' },
  receipt_code_too_soon: { status: 429, title: 'A new code can be requested one minute after the last one' },
  receipt_code_limit: { status: 429, title: 'At most five codes per hour can be sent for a session' },
  // webhook operations and sessions for support (issue 9, webhook-ops)
  sandbox_only: { status: 409, title: 'This operation is available in the sandbox environment only' },
  cursor_invalid: { status: 400, title: 'The pagination cursor is not valid' },
  // branding and return_url (issue 10, ADR 0019)
  return_url_not_allowed: { status: 400, title: 'return_url is not on a registered origin' },
  branding_contrast_insufficient: { status: 400, title: 'Accent colour has too little contrast' },
  logo_type_unsupported: { status: 400, title: 'The logo must be a PNG, JPEG or WebP image' },
  logo_too_large: { status: 413, title: 'The logo is larger than 256 KiB' },
  logo_dimensions_invalid: { status: 400, title: 'The logo must be 16 to 2048 pixels on each side' },
  // the verifier's identity (issue 19, ADR 0034): access certificates imported by the operator
  access_chain_invalid: {
    status: 400,
    title: 'The certificate chain does not validate from the leaf to a self-signed root',
  },
  access_chain_key_mismatch: { status: 400, title: 'The leaf certificate is not for a verifier key of ours' },
  access_chain_key_usage: { status: 400, title: 'The leaf certificate does not allow digitalSignature' },
  access_chain_host_mismatch: {
    status: 400,
    title: 'The leaf certificate’s subjectAltName does not name the host of HOSTED_URL',
  },
  access_chain_not_current: {
    status: 400,
    title: 'A certificate of the chain is expired or not yet valid',
  },
  access_chain_already_imported: { status: 409, title: 'This leaf certificate was imported before' },
  access_certificate_missing: {
    status: 503,
    title: 'No currently valid access certificate for the hosted host has been imported',
  },
  // reader certificates for mdoc reader authentication (issue 26, ADR 0049), refused at import
  reader_cert_chain_invalid: {
    status: 400,
    title: 'The reader certificate chain does not link: give the leaf and the certificates that issued it',
  },
  reader_cert_key_mismatch: { status: 400, title: 'The reader certificate is not for a reader key of ours' },
  reader_cert_domain_mismatch: {
    status: 400,
    title: 'The reader certificate does not name the host of HOSTED_URL (CN or subjectAltName)',
  },
  // how the service speaks for a business per route (issue 26, ADR 0053)
  business_certificate_missing: {
    status: 409,
    title: 'The route signs with the business’s own access certificate, and none is imported and valid',
  },
  registration_certificate_missing: {
    status: 409,
    title: 'The route speaks as an intermediary, and the business has no registration certificate for it',
  },
  reader_cert_expired: { status: 400, title: 'A certificate of the reader chain has expired' },
  reader_cert_not_yet_valid: { status: 400, title: 'A certificate of the reader chain is not valid yet' },
  reader_cert_already_imported: { status: 409, title: 'This reader certificate was imported before' },
  // the business in the wallet (issue 19, ADR 0040): verifier_info and imported registration certificates
  verifier_info_mismatch: {
    status: 422,
    title: 'The wallet refuses the request: its verifier_info does not match the signer',
  },
  verifier_info_invalid: {
    status: 422,
    title: 'The wallet refuses the request: its registration certificate is not valid',
  },
  registration_cert_invalid: {
    status: 400,
    title: 'The registration certificate is not a signed JWT with x5c',
  },
  registration_cert_typ: { status: 400, title: 'The registration certificate’s typ is not rc-wrp+jwt' },
  registration_cert_untrusted: {
    status: 400,
    title: 'The registration certificate is not signed under a configured registrar trust anchor',
  },
  registration_cert_expired: {
    status: 400,
    title: 'The registration certificate has expired, is not yet valid, or has no exp',
  },
  registration_cert_client_mismatch: {
    status: 400,
    title:
      'The registration certificate’s sub is not the client_id the service signs this business’s requests with',
  },
  registration_cert_business_mismatch: {
    status: 400,
    title: 'The registration certificate does not name this business',
  },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly param?: string;
  /** Extra client-visible fields (e.g. retry_after). */
  readonly extra?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    detail?: string,
    opts: { param?: string; cause?: unknown; extra?: Record<string, unknown> } = {},
  ) {
    super(detail ?? ERROR_CODES[code].title, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.title = ERROR_CODES[code].title;
    this.param = opts.param;
    this.extra = opts.extra;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  param?: string;
  request_id: string;
  [k: string]: unknown;
}

/**
 * RFC 9457 body for an error; unexpected errors become a generic internal_error. `type` is the code's page of
 * the error reference the service serves itself (`{base_url}/errors/<code>`); typeBase is that prefix, and
 * without one (a bare app in a unit test) the reference is relative, which RFC 9457 allows.
 */
export function toProblem(err: unknown, requestId: string, typeBase = '/errors/'): ProblemDetails {
  const e = isAppError(err) ? err : new AppError('internal_error', 'An unexpected error occurred.');
  return {
    type: `${typeBase}${e.code}`,
    title: e.title,
    status: e.status,
    detail: e.message,
    code: e.code,
    ...(e.param ? { param: e.param } : {}),
    request_id: requestId,
    ...(e.extra ?? {}),
  };
}
