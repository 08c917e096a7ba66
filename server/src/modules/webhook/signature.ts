// Owns the webhook signature scheme: `X-Service-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`,
// several comma-separated `v1=` values allowed. The verifier is also the helper shipped to receivers.
import { hmacSha256Hex, safeEqual } from '../../common/crypto';

export const SIGNATURE_SCHEME = 'v1';

/** Signature header value for one secret: `v1=<hex>`. `timestamp` is unix seconds, `body` the exact raw body. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `${SIGNATURE_SCHEME}=${hmacSha256Hex(secret, `${timestamp}.${body}`)}`;
}

export interface VerifyWebhookInput {
  secret: string;
  /** The X-Service-Signature header as received. */
  signatureHeader: string | undefined | null;
  /** The X-Service-Timestamp header (unix seconds) as received. */
  timestamp: number | string | undefined | null;
  /** The raw request body, byte-for-byte as received (not re-serialized JSON). */
  body: string;
  now: Date;
  toleranceSeconds?: number;
}

/**
 * True when one `v1=` value of the header is the HMAC of `timestamp.body` under `secret` and the timestamp is
 * within `toleranceSeconds` of `now` (either direction, which limits replay of captured deliveries).
 */
export function verifyWebhookSignature(input: VerifyWebhookInput): boolean {
  const { secret, signatureHeader, body, now, toleranceSeconds = 300 } = input;
  const tsText = String(input.timestamp ?? '').trim();
  if (!signatureHeader || !/^\d{1,12}$/.test(tsText)) return false;
  const ts = Number(tsText);
  if (Math.abs(now.getTime() / 1000 - ts) > toleranceSeconds) return false;
  const expected = signWebhook(secret, ts, body);
  let ok = false;
  // Compare against every candidate (no early exit) so timing does not reveal which one matched.
  for (const part of signatureHeader.split(',')) {
    const candidate = part.trim();
    if (candidate.startsWith(`${SIGNATURE_SCHEME}=`) && safeEqual(candidate, expected)) ok = true;
  }
  return ok;
}
