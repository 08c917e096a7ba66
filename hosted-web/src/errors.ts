// The one map from server error code to what the person on the page reads. Codes mirror
// server/src/common/errors.ts; anything unknown falls back to GENERIC, never to the server's wording.
import { ApiError } from './api';

const GENERIC = 'Something went wrong on our side. Please try again in a moment.';
const TRY_AGAIN_WALLET = 'Please try again, or use another credential.';

export const ERROR_COPY: Record<string, string> = {
  // reaching the session
  not_found: 'This verification link is not valid. Check that you opened the full link you were sent.',
  session_expired: 'This verification link has expired. Ask the business for a new link.',
  session_bound_elsewhere:
    'This verification was started on another device or browser. Continue there, or ask the business for a new link.',
  session_state_conflict:
    'This verification has moved on in the meantime. The page shows where it stands now.',
  step_window_expired: 'The time for this step has run out. Ask the business for a new link.',
  forbidden: 'You cannot do this from this browser.',
  rate_limited: 'Too many attempts in a short time. Please wait a minute and try again.',
  network_error: 'We could not reach the server. Check your connection and try again.',
  internal_error: GENERIC,
  validation_failed: GENERIC,
  invalid_json: GENERIC,
  unsupported_media_type: GENERIC,
  payload_too_large: 'The wallet answer was too large to accept. Please try again.',
  // wallet answers
  request_not_found: 'This wallet request was already used or has run out. Please share again.',
  presentation_malformed: `The wallet answer could not be read. ${TRY_AGAIN_WALLET}`,
  issuer_untrusted: `This credential comes from an issuer that is not accepted here. ${TRY_AGAIN_WALLET}`,
  credential_signature_invalid: `The credential's signature could not be confirmed. ${TRY_AGAIN_WALLET}`,
  credential_type_invalid: `This kind of credential is not accepted for this step. ${TRY_AGAIN_WALLET}`,
  credential_revoked: `This credential has been revoked by its issuer. ${TRY_AGAIN_WALLET}`,
  credential_suspended: `This credential is currently suspended by its issuer. ${TRY_AGAIN_WALLET}`,
  credential_expired: `This credential has expired. ${TRY_AGAIN_WALLET}`,
  status_check_failed: 'We could not check the credential with its issuer right now. Please try again.',
  claims_missing: `The wallet did not share everything that was asked for. ${TRY_AGAIN_WALLET}`,
  disclosure_invalid: `Part of the shared data does not match the credential. ${TRY_AGAIN_WALLET}`,
  nonce_mismatch: 'The wallet answered an older request. Please share again.',
  audience_mismatch: 'The wallet answer was made for another website. Please share again from this page.',
  key_binding_missing: `The wallet did not prove it holds the credential. ${TRY_AGAIN_WALLET}`,
  key_binding_invalid: `The wallet's proof of holding the credential is not valid. ${TRY_AGAIN_WALLET}`,
  key_binding_stale: 'The wallet answer is too old, or the device clock is off. Please share again.',
  sd_hash_mismatch: `The wallet's proof does not cover the shared data. ${TRY_AGAIN_WALLET}`,
  transaction_data_missing: `The wallet did not sign the documents or terms shown here. ${TRY_AGAIN_WALLET}`,
  transaction_data_mismatch:
    'The wallet signed other documents or terms than the ones shown here. Please share again from this page.',
  device_signed_unauthorized: `This credential cannot be used to sign documents or terms. ${TRY_AGAIN_WALLET}`,
  response_not_encrypted: `The wallet answer was not protected as required. ${TRY_AGAIN_WALLET}`,
  response_decryption_failed: 'The wallet answer was meant for another request. Please share again.',
  // the signer's record (receipts)
  receipt_not_available: 'A receipt is available once a step is completed.',
  receipt_access_ended:
    'Online access to this record has ended (48 hours after the verification ended). Files you saved stay valid.',
  receipt_access_closed: 'Online access to this record was closed. Files you saved stay valid.',
  receipt_code_invalid: 'That code is not correct. Check the email and try again.',
  receipt_code_expired: 'That code has expired or was already used. Ask for a new code.',
  receipt_code_too_soon: 'Please wait a minute before asking for a new code.',
  receipt_code_limit: 'You have asked for five codes this hour. Please try again later.',
  // browser wallet (Digital Credentials API) outcomes, decided on the page
  wallet_cancelled: 'Sharing was cancelled. You can try again when you are ready.',
  wallet_unavailable: 'No wallet on this device could answer. Try again, or use another device.',
};

export interface UserError {
  message: string;
  requestId?: string;
}

export function toUserError(err: unknown): UserError {
  if (err instanceof ApiError) return { message: ERROR_COPY[err.code] ?? GENERIC, requestId: err.requestId };
  return { message: GENERIC };
}
