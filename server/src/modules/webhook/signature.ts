// Owns the webhook signature scheme: `X-Service-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`,
// several comma-separated `v1=` values allowed. The verifier is also the helper shipped to receivers.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { hmacSha256Hex, safeEqual } from '../../common/crypto';
import { base32 } from '../../common/ids';

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

// ------------------------------------------------------------------------------------------------------------
// Delivery headers: the spec's X-Service-* set and, next to it, the Standard Webhooks set (webhook-id,
// webhook-timestamp, webhook-signature). The relay calls webhookDeliveryHeaders() once per attempt with the
// endpoint's active secrets (current first, then the previous one during a rotation overlap); every attempt,
// retries included, is signed with the secrets active at that attempt.

/** The fields of an endpoint that decide which secrets sign an attempt. */
export interface EndpointSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** Secrets that sign an attempt at `now`: the current one, plus the previous one until its overlap ends. */
export function activeSecrets(endpoint: EndpointSecrets, now: Date): string[] {
  const out = [endpoint.secret];
  if (
    endpoint.previousSecret &&
    endpoint.previousSecretExpiresAt &&
    now.getTime() < endpoint.previousSecretExpiresAt.getTime()
  )
    out.push(endpoint.previousSecret);
  return out;
}

/**
 * `webhook-id`: Standard Webhooks signs `{id}.{timestamp}.{body}`, so the id must not contain a dot, and our
 * delivery ids do (`step.completed`). Derived, stable per delivery id (so stable across retries and redeliveries):
 * `msg_` + 32 Crockford base32 characters (160 bits) of SHA-256(delivery id).
 */
export function standardWebhookId(deliveryId: string): string {
  return `msg_${base32(createHash('sha256').update(deliveryId).digest()).slice(0, 32)}`;
}

/**
 * The HMAC key of the Standard Webhooks signature: the base64 part of `whsec_<base64>` decoded (what the
 * `standardwebhooks`/`svix` libraries do). Secrets issued before base64 secrets (base64url) decode the same way.
 */
export function standardWebhookKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** One `webhook-signature` value: `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`. */
export function signStandardWebhook(secret: string, msgId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', standardWebhookKey(secret))
    .update(`${msgId}.${timestamp}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

export interface SignableEvent {
  event: string;
  deliveryId: string;
  /** The exact body that is POSTed. */
  body: string;
}

/**
 * Every signature-related header of one attempt. `secrets` are the endpoint's active secrets (activeSecrets);
 * with two, both header sets carry two signatures (`v1=<hex>,v1=<hex>` and `v1,<b64> v1,<b64>`).
 */
export function webhookDeliveryHeaders(
  ev: SignableEvent,
  secrets: readonly string[],
  timestamp: number,
): Record<string, string> {
  const msgId = standardWebhookId(ev.deliveryId);
  return {
    'X-Service-Event': ev.event,
    'X-Service-Timestamp': String(timestamp),
    'X-Service-Signature': secrets.map((s) => signWebhook(s, timestamp, ev.body)).join(','),
    'X-Service-Delivery-Id': ev.deliveryId,
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signStandardWebhook(s, msgId, timestamp, ev.body)).join(' '),
  };
}

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks serialization). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
