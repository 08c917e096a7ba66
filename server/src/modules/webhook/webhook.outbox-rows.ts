// The retry schedule and the shapes of claimed deliveries, attempts and their recorded rows, shared by the outbox
// store (webhook.outbox-store.ts), the relay and the sender.
import { newId } from '../../common/ids';
import { responseExcerpt } from './delivery-log';
import { toDate } from './webhook.outbox-sql';

/** Delay after the n-th failed attempt (index n-1); after the last one the delivery is marked failed. */
export const RETRY_SCHEDULE_MS = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000].map((s) => s * 1000);
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** Next retry delay after `failedAttempts` failures, with +-10% jitter; Retry-After wins when later. */
export function nextRetryDelayMs(
  failedAttempts: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  const base = RETRY_SCHEDULE_MS[failedAttempts - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (0.9 + 0.2 * random()));
  return retryAfterMs !== null && retryAfterMs > jittered
    ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)
    : jittered;
}

/** A claimed delivery: the outbox row and its endpoint, read back by the claim's token. */
export interface ClaimedDelivery {
  id: string;
  businessId: string;
  environment: 'sandbox' | 'production';
  sessionId: string;
  sequence: number;
  event: string;
  deliveryId: string;
  body: string;
  /** Attempts before this one. */
  attempts: number;
  claimToken: string;
  url: string | null;
  /** The endpoint the secrets below belong to (their sealing AAD). */
  endpointId: string | null;
  /** Sealed, as stored (opened only to sign an attempt). */
  secret: string | null;
  /** The secret being rotated out, signing alongside until its overlap ends (signature.ts activeSecrets). */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  /**
   * The session's next events, claimed with this one (same token): sent one after the other, each only after
   * the one before it got its 2xx; those not sent are released by `record` (ADR 0045, statements per session).
   */
  successors?: ClaimedDelivery[];
}

/** What the store records of one attempt (the sender's outcome, webhook.sender.ts, has this shape). */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
  /** The URL the attempt went to, and the first bytes the receiver answered (delivery log). */
  url: string | null;
  excerpt: Buffer | null;
}

/** One finished attempt of a claimed delivery, waiting to be recorded. */
export interface Attempted {
  d: ClaimedDelivery;
  attemptedAt: Date;
  durationMs: number;
  outcome: AttemptOutcome;
}

export type RecordedResult = 'delivered' | 'retry' | 'failed'; // failed: the retry schedule is exhausted

/** The webhook_attempt row of one attempt, built in one place (attempt-log fields grow here). */
export function attemptRow(a: Attempted): Record<string, string | number | Date | null> {
  return {
    id: newId('whatt'),
    event_id: a.d.id,
    business_id: a.d.businessId,
    attempted_at: a.attemptedAt,
    status_code: a.outcome.statusCode,
    error: a.outcome.error?.slice(0, 500) ?? null,
    duration_ms: a.durationMs,
    environment: a.d.environment,
    url: a.outcome.url,
    response_excerpt: responseExcerpt(a.outcome.excerpt),
  };
}

/** A claimed row (the candidates query of webhook.outbox-sql.ts) as a delivery carrying its claim's token. */
export function claimedDelivery(r: Record<string, unknown>, token: string): ClaimedDelivery {
  return {
    id: String(r.id),
    businessId: String(r.business_id),
    environment: r.environment as 'sandbox' | 'production',
    sessionId: String(r.session_id),
    sequence: Number(r.sequence),
    event: String(r.event),
    deliveryId: String(r.delivery_id),
    body: String(r.body),
    attempts: Number(r.attempts),
    claimToken: token,
    url: r.url == null ? null : String(r.url),
    endpointId: r.endpoint_id == null ? null : String(r.endpoint_id),
    secret: r.secret == null ? null : String(r.secret),
    previousSecret: r.previous_secret == null ? null : String(r.previous_secret),
    previousSecretExpiresAt:
      r.previous_secret_expires_at == null ? null : toDate(r.previous_secret_expires_at),
  };
}

/**
 * A session's terminal events: each is its session's last. A session queues its events only in its
 * transitions, and no transition leaves a terminal status (session.machine.ts); redelivery re-queues an event
 * that is there. So a delivered terminal event has no successor to wake (record). Named here, not derived from
 * the session module's statuses (the session module uses this one, not the other way round); the session
 * machine's test holds this list to its terminal statuses.
 */
export const TERMINAL_EVENTS: ReadonlySet<string> = new Set([
  'session.completed',
  'session.stopped',
  'session.failed',
  'session.expired',
]);
