// A session's failure and timeline in words for the business, in the dashboard's language (issue 29: "Failure
// age_requirement_not_met at step 1" and "condition_matched (step 1) fail" were shown raw). The code stays
// beside the words, small. The sentences are messages/results.ts (FAILURE_WORDS keyed by the failure codes).

import { ConditionFailureReason } from '../../graphql/generated';
import { type DashKey, dt } from '../i18n';
import { FAILURE_WORDS } from '../messages/results';

const CONDITION_CODES: readonly string[] = Object.values(ConditionFailureReason);

import type { TimelineEntry } from '../sessions-api';

/** Why a session failed or expired (FailureReason.code), or why a wallet answer was refused, as a sentence. */
export const failureWords = (code: string): string =>
  dt(
    Object.hasOwn(FAILURE_WORDS, code)
      ? (FAILURE_WORDS[code as keyof typeof FAILURE_WORDS] as DashKey)
      : 'failure.unknown',
  );

/** The failure line of the session facts: the sentence, and where. */
export const failureLine = (code: string, stage: number | null | undefined): string =>
  `${failureWords(code)}${stage == null ? '' : dt('detail.step', { n: String(stage + 1) })}`;

type Detail = Record<string, unknown> | null;
const detailOf = (e: TimelineEntry): Detail =>
  e.detail && typeof e.detail === 'object' ? (e.detail as Record<string, unknown>) : null;

/**
 * A condition that matched, in words: which one and what it did. `d` is the match as the timeline entry's
 * detail and the audit record's `condition` write it ({index, claim, operator, outcome, skip_to |
 * failure_reason}); `stage` the step whose result it tested.
 */
export function conditionWords(
  d: Record<string, unknown> | null,
  stage: number | null,
  code?: string | null,
): string {
  const index = typeof d?.index === 'number' ? String(d.index + 1) : '';
  const which =
    stage == null
      ? dt('timeline.whichNoStep', { index })
      : dt('timeline.which', { index, n: String(stage + 1) });
  const outcome = d?.outcome ?? code;
  if (outcome === 'fail')
    return `${dt('timeline.failed', { which })} ${
      typeof d?.failure_reason === 'string' ? failureWords(d.failure_reason) : ''
    }`.trim();
  if (outcome === 'skip')
    return dt('timeline.skipped', {
      which,
      n: typeof d?.skip_to === 'number' ? String(d.skip_to + 1) : '?',
    });
  if (outcome === 'complete') return dt('timeline.completed', { which });
  return which;
}

/** True when the session's failure is a workflow condition on step `stage`'s result (its result exists). */
export const conditionFailedAt = (
  failure: { code: string; stage?: number | null } | null | undefined,
  stage: number,
): boolean => Boolean(failure && failure.stage === stage && CONDITION_CODES.includes(failure.code));

/** What one timeline entry says beyond its kind, or null. */
export function entryWords(e: TimelineEntry): string | null {
  const d = detailOf(e);
  if (e.kind === 'condition_matched') return conditionWords(d, e.stage ?? null, e.code);
  if ((e.kind === 'webhook_queued' || e.kind === 'webhook_attempt') && typeof d?.event === 'string')
    return e.kind === 'webhook_queued'
      ? d.event
      : typeof d.status_code === 'number'
        ? dt('timeline.answered', { event: d.event, status: String(d.status_code) })
        : dt('timeline.noAnswer', { event: d.event });
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
