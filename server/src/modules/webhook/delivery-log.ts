// Owns the delivery log: one webhook_attempt row per attempt, written by the relay in the transaction that
// records the attempt's outcome. What the receiver answered is kept as a capped excerpt; nothing we sent
// (body, signatures, secret) is stored here.
import type { EntityManager } from 'typeorm';
import { newId } from '../../common/ids';
import { WebhookAttemptEntity } from './webhook-attempt.entity';

/** Bytes of the receiver's response body kept per attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface AttemptRecord {
  eventId: string;
  businessId: string;
  environment: 'sandbox' | 'production';
  /** The URL the attempt went to (null when no endpoint was configured). */
  url: string | null;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The first bytes of the response body as received (decoded as UTF-8, cut to the cap). */
  responseExcerpt: Buffer | null;
}

/** The stored excerpt: at most RESPONSE_EXCERPT_BYTES, without a split multi-byte character at the end. */
export function responseExcerpt(bytes: Buffer | null): string | null {
  if (!bytes || bytes.length === 0) return null;
  const text = bytes.subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8');
  return text.endsWith('\uFFFD') && bytes.length >= RESPONSE_EXCERPT_BYTES ? text.slice(0, -1) : text;
}

export async function recordAttempt(m: EntityManager, a: AttemptRecord): Promise<void> {
  await m.getRepository(WebhookAttemptEntity).insert({
    id: newId('whatt'),
    eventId: a.eventId,
    businessId: a.businessId,
    environment: a.environment,
    url: a.url,
    attemptedAt: a.attemptedAt,
    statusCode: a.statusCode,
    error: a.error?.slice(0, 500) ?? null,
    durationMs: a.durationMs,
    responseExcerpt: responseExcerpt(a.responseExcerpt),
  });
}
