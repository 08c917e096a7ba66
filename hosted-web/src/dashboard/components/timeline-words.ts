// A session's failure and timeline in words for the business (issue 29: "Failure age_requirement_not_met at
// step 1" and "condition_matched (step 1) fail" were shown raw). The code stays beside the words, small.
import type { TimelineEntry } from '../sessions-api';

/** Why a session failed or expired (FailureReason.code), as a sentence. */
const FAILURE: Record<string, string> = {
  age_requirement_not_met: 'The person is not old enough: the age check of this step was not met.',
  condition_not_met: 'A condition of this step failed the session.',
  nationality_not_accepted: 'The nationality on the credential is not one this workflow accepts.',
  document_not_accepted: 'The identity document is not one this workflow accepts.',
  session_expired: 'The session ran out of time before it was finished.',
  step_window_expired: 'The time for this step ran out before the person finished it.',
  issuer_untrusted: 'The credential came from an issuer this workflow does not trust.',
  credential_signature_invalid: 'The credential’s signature does not check out.',
  credential_type_invalid: 'The credential is not of a type this step accepts.',
  credential_expired: 'The credential had expired.',
  credential_revoked: 'The credential has been revoked by its issuer.',
  credential_suspended: 'The credential is suspended by its issuer.',
  status_check_failed: 'The credential’s status could not be checked.',
  holder_mismatch: 'The credential belongs to someone other than the person of the first step.',
  claims_missing: 'The wallet did not share every detail this step asks for.',
  presentation_malformed: 'The wallet’s answer could not be read.',
  key_binding_invalid: 'The wallet’s proof of holding the credential does not check out.',
  key_binding_missing: 'The wallet did not prove it holds the credential.',
  transaction_data_mismatch: 'The wallet signed something other than the documents of this step.',
};

export const failureWords = (code: string): string =>
  FAILURE[code] ?? 'The session failed for the reason the code names (see the error reference).';

/** The failure line of the session facts: the sentence, and where. */
export const failureLine = (code: string, stage: number | null | undefined): string =>
  `${failureWords(code)}${stage == null ? '' : ` (step ${stage + 1})`}`;

type Detail = Record<string, unknown> | null;
const detailOf = (e: TimelineEntry): Detail =>
  e.detail && typeof e.detail === 'object' ? (e.detail as Record<string, unknown>) : null;

/** A condition that matched (condition_matched), in words: which one and what it did. */
function conditionWords(e: TimelineEntry): string {
  const d = detailOf(e);
  const which = `condition ${typeof d?.index === 'number' ? d.index + 1 : ''}${
    e.stage == null ? '' : ` of step ${e.stage + 1}`
  }`.replace('  ', ' ');
  const outcome = d?.outcome ?? e.code;
  if (outcome === 'fail')
    return `${which}, so the session failed. ${
      typeof d?.failure_reason === 'string' ? failureWords(d.failure_reason) : ''
    }`.trim();
  if (outcome === 'skip')
    return `${which}, so the session went on at step ${typeof d?.skip_to === 'number' ? d.skip_to + 1 : '?'}.`;
  if (outcome === 'complete') return `${which}, so the session ended completed.`;
  return which;
}

/** What one timeline entry says beyond its kind, or null. */
export function entryWords(e: TimelineEntry): string | null {
  const d = detailOf(e);
  if (e.kind === 'condition_matched') return conditionWords(e);
  if ((e.kind === 'webhook_queued' || e.kind === 'webhook_attempt') && typeof d?.event === 'string')
    return e.kind === 'webhook_queued'
      ? `${d.event}`
      : `${d.event}: ${typeof d.status_code === 'number' ? `answered ${d.status_code}` : 'no answer'}`;
  if ((e.kind === 'failed' || e.kind === 'expired' || e.kind === 'wallet_response_refused') && e.code)
    return failureWords(e.code);
  return null;
}

/**
 * One Share asks the wallet once, though the page prepares a request per way of reaching it (same device,
 * another device): consecutive wallet_request entries of one step show as one.
 */
export function collapseWalletRequests(entries: readonly TimelineEntry[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const e of entries) {
    const last = out[out.length - 1];
    if (e.kind === 'wallet_request' && last?.kind === 'wallet_request' && last.stage === e.stage) continue;
    out.push(e);
  }
  return out;
}
