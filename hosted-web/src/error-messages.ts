// The signer page's words for every error code (errors.ts shows them): keyed by the server's closed list of
// codes (ErrorCode, generated from server/src/common/errors.ts), so a new code without words here is a type
// error, and every message it names must exist in en, de and fr (the catalogues' Messages type). A code the
// page never receives (the dashboard's, the operator's) is mapped to the generic message on purpose. Plain
// data (no DOM), so test/unit/signer-i18n.test.ts checks it against the server's list.
import type { MessageKey } from './i18n/en';
import type { ErrorCode } from './transport.generated';

/** Codes the page makes itself, without a server answer (api.ts, DcApi.ts, CrossDevice.tsx). */
export type PageErrorCode = 'network_error' | 'wallet_cancelled' | 'wallet_unavailable';

export const GENERIC = 'error.generic';
/** The wallet cannot be asked: the business's or the service's setup is missing a piece (ADR 0053). */
const CANNOT_ASK = 'error.cannot_ask_wallet';

/** Every code to the message that words it for the person. */
export const ERROR_MESSAGES = {
  // request and auth
  unauthenticated: GENERIC,
  forbidden: 'error.forbidden',
  not_found: 'error.not_found',
  validation_failed: GENERIC,
  invalid_json: GENERIC,
  unsupported_media_type: GENERIC,
  payload_too_large: 'error.payload_too_large',
  rate_limited: 'error.rate_limited',
  internal_error: GENERIC,
  // workflows and sessions
  workflow_not_found: GENERIC,
  workflow_not_published: GENERIC,
  workflow_invalid: GENERIC,
  workflow_api_only: GENERIC,
  webhook_endpoint_required: GENERIC,
  webhook_url_invalid: GENERIC,
  idempotency_in_progress: GENERIC,
  session_state_conflict: 'error.session_state_conflict',
  session_expired: 'error.session_expired',
  session_bound_elsewhere: 'error.session_bound_elsewhere',
  redirect_other_browser: 'error.redirect_other_browser',
  step_window_expired: 'error.step_window_expired',
  documents_not_shown: 'error.documents_not_shown',
  documents_required: GENERIC,
  route_unavailable: CANNOT_ASK,
  protocol_not_offered: CANNOT_ASK,
  // verification (wallet responses)
  presentation_malformed: 'error.presentation_malformed',
  request_not_found: 'error.request_not_found',
  gw_metadata_mismatch: CANNOT_ASK,
  wallet_metadata_invalid: 'error.wallet_unavailable',
  issuer_untrusted: 'error.issuer_untrusted',
  credential_signature_invalid: 'error.credential_signature_invalid',
  credential_type_invalid: 'error.credential_type_invalid',
  credential_expired: 'error.credential_expired',
  credential_revoked: 'error.credential_revoked',
  credential_suspended: 'error.credential_suspended',
  status_check_failed: 'error.status_check_failed',
  disclosure_invalid: 'error.disclosure_invalid',
  key_binding_missing: 'error.key_binding_missing',
  key_binding_invalid: 'error.key_binding_invalid',
  nonce_mismatch: 'error.nonce_mismatch',
  audience_mismatch: 'error.audience_mismatch',
  key_binding_stale: 'error.key_binding_stale',
  sd_hash_mismatch: 'error.sd_hash_mismatch',
  claims_missing: 'error.claims_missing',
  holder_mismatch: 'error.holder_mismatch',
  response_not_encrypted: 'error.response_not_encrypted',
  response_decryption_failed: 'error.response_decryption_failed',
  transaction_data_missing: 'error.transaction_data_missing',
  transaction_data_mismatch: 'error.transaction_data_mismatch',
  issuer_certificate_invalid_at_signing: 'error.issuer_certificate_invalid_at_signing',
  device_signed_unauthorized: 'error.device_signed_unauthorized',
  not_ready: 'error.service_unavailable',
  // the dashboard's accounts: never answered to the page
  dashboard_user_required: GENERIC,
  role_insufficient: GENERIC,
  csrf_token_invalid: GENERIC,
  api_key_scope_missing: GENERIC,
  invitation_invalid: GENERIC,
  sign_in_link_invalid: GENERIC,
  passkey_invalid: GENERIC,
  email_in_use: GENERIC,
  service_unavailable: 'error.service_unavailable',
  // the signer's record
  receipt_not_available: 'error.receipt_not_available',
  receipt_access_ended: 'error.receipt_access_ended',
  receipt_access_closed: 'error.receipt_access_closed',
  receipt_code_invalid: 'error.receipt_code_invalid',
  receipt_code_expired: 'error.receipt_code_expired',
  receipt_code_too_soon: 'error.receipt_code_too_soon',
  receipt_code_limit: 'error.receipt_code_limit',
  sandbox_only: GENERIC,
  cursor_invalid: GENERIC,
  return_url_not_allowed: GENERIC,
  branding_contrast_insufficient: GENERIC,
  logo_type_unsupported: GENERIC,
  logo_too_large: GENERIC,
  logo_dimensions_invalid: GENERIC,
  // the verifier's identity: imports refused to the operator; a missing certificate stops the wallet request
  access_chain_invalid: GENERIC,
  access_chain_key_mismatch: GENERIC,
  access_chain_key_usage: GENERIC,
  access_chain_host_mismatch: GENERIC,
  access_chain_not_current: GENERIC,
  access_chain_already_imported: GENERIC,
  access_certificate_missing: CANNOT_ASK,
  reader_cert_chain_invalid: GENERIC,
  reader_cert_key_mismatch: GENERIC,
  reader_cert_domain_mismatch: GENERIC,
  business_certificate_missing: CANNOT_ASK,
  registration_certificate_missing: CANNOT_ASK,
  reader_cert_expired: GENERIC,
  reader_cert_not_yet_valid: GENERIC,
  reader_cert_already_imported: GENERIC,
  verifier_info_mismatch: 'error.verifier_info_mismatch',
  verifier_info_invalid: 'error.verifier_info_invalid',
  registration_cert_invalid: GENERIC,
  registration_cert_typ: GENERIC,
  registration_cert_untrusted: GENERIC,
  registration_cert_expired: GENERIC,
  registration_cert_client_mismatch: GENERIC,
  registration_cert_business_mismatch: GENERIC,
  // the page's own
  network_error: 'error.network_error',
  wallet_cancelled: 'error.wallet_cancelled',
  wallet_unavailable: 'error.wallet_unavailable',
} as const satisfies Record<ErrorCode | PageErrorCode, MessageKey>;
