import { describe, expect, it } from 'vitest';
import {
  activeSecrets,
  newWebhookSecret,
  signStandardWebhook,
  signWebhook,
  standardWebhookId,
  verifyWebhookSignature,
  webhookDeliveryHeaders,
} from './signature';

const secret = 'whsec_test';
const body = '{"event":"step.completed","delivery_id":"sess_x:step.completed:0","data":{"stage":0}}';
const ts = 1_760_000_000;
const now = new Date(ts * 1000);

describe('webhook signature', () => {
  it('signs timestamp.body with HMAC-SHA256 as v1=<hex>', () => {
    // Reference value computed independently: printf '%s' "1760000000.$body" | openssl dgst -sha256 -hmac whsec_test
    expect(signWebhook(secret, ts, body)).toBe(
      'v1=b294edde06ab3cd801c1759bab6d025d1e950e537890eac6cce91ca71497ea5f',
    );
    expect(signWebhook(secret, ts, body)).not.toBe(signWebhook(secret, ts + 1, body));
  });

  it('accepts a valid signature, also among several comma-separated values (secret rotation)', () => {
    const sig = signWebhook(secret, ts, body);
    expect(verifyWebhookSignature({ secret, signatureHeader: sig, timestamp: String(ts), body, now })).toBe(
      true,
    );
    const rotated = `${signWebhook('whsec_old', ts, body)}, ${sig}`;
    expect(verifyWebhookSignature({ secret, signatureHeader: rotated, timestamp: ts, body, now })).toBe(true);
  });

  it('rejects a tampered body, a wrong secret, a missing header and other schemes', () => {
    const sig = signWebhook(secret, ts, body);
    const tampered = body.replace('"stage":0', '"stage":1');
    expect(verifyWebhookSignature({ secret, signatureHeader: sig, timestamp: ts, body: tampered, now })).toBe(
      false,
    );
    expect(
      verifyWebhookSignature({ secret: 'whsec_other', signatureHeader: sig, timestamp: ts, body, now }),
    ).toBe(false);
    expect(verifyWebhookSignature({ secret, signatureHeader: undefined, timestamp: ts, body, now })).toBe(
      false,
    );
    const v0 = sig.replace('v1=', 'v0=');
    expect(verifyWebhookSignature({ secret, signatureHeader: v0, timestamp: ts, body, now })).toBe(false);
  });

  it('rejects a timestamp outside the tolerance (default 5 minutes), or a signature for another timestamp', () => {
    const sig = signWebhook(secret, ts, body);
    const at = (s: number) => new Date((ts + s) * 1000);
    expect(verifyWebhookSignature({ secret, signatureHeader: sig, timestamp: ts, body, now: at(300) })).toBe(
      true,
    );
    expect(verifyWebhookSignature({ secret, signatureHeader: sig, timestamp: ts, body, now: at(301) })).toBe(
      false,
    );
    expect(verifyWebhookSignature({ secret, signatureHeader: sig, timestamp: ts, body, now: at(-301) })).toBe(
      false,
    );
    expect(
      verifyWebhookSignature({
        secret,
        signatureHeader: sig,
        timestamp: ts,
        body,
        now: at(30),
        toleranceSeconds: 10,
      }),
    ).toBe(false);
    // replaying the body with a fresh timestamp but the old signature fails
    expect(
      verifyWebhookSignature({ secret, signatureHeader: sig, timestamp: ts + 60, body, now: at(60) }),
    ).toBe(false);
    expect(verifyWebhookSignature({ secret, signatureHeader: sig, timestamp: 'abc', body, now })).toBe(false);
  });
});

describe('Standard Webhooks signature and headers', () => {
  it('matches the Standard Webhooks reference vector (key = base64-decoded secret, "id.timestamp.body")', () => {
    // The vector of the standard-webhooks libraries' tests; recomputed with
    // openssl dgst -sha256 -mac HMAC -macopt hexkey:<decoded secret> -binary | base64
    expect(
      signStandardWebhook(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('derives a dot-free webhook-id, stable per delivery id and distinct between delivery ids', () => {
    const id = standardWebhookId('sess_x:step.completed:0');
    expect(id).toMatch(/^msg_[0-9a-z]{32}$/);
    expect(id).not.toContain('.');
    expect(standardWebhookId('sess_x:step.completed:0')).toBe(id);
    expect(standardWebhookId('sess_x:step.completed:1')).not.toBe(id);
  });

  it('carries one signature per active secret in both header sets', () => {
    const secrets = [newWebhookSecret(), newWebhookSecret()];
    const ev = { event: 'step.completed', deliveryId: 'sess_x:step.completed:0', body };
    const one = webhookDeliveryHeaders(ev, secrets.slice(0, 1), ts);
    const two = webhookDeliveryHeaders(ev, secrets, ts);
    expect(one['X-Service-Signature']).toBe(signWebhook(secrets[0] as string, ts, body));
    expect(two['X-Service-Signature']).toBe(
      `${one['X-Service-Signature']},${signWebhook(secrets[1] as string, ts, body)}`,
    );
    expect(two['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(two['webhook-id']).toBe(standardWebhookId(ev.deliveryId));
    expect(two['webhook-timestamp']).toBe(String(ts));
    expect(two['X-Service-Delivery-Id']).toBe(ev.deliveryId);
    for (const secret of secrets)
      expect(
        verifyWebhookSignature({
          secret,
          signatureHeader: two['X-Service-Signature'],
          timestamp: ts,
          body,
          now,
        }),
      ).toBe(true);
  });

  it('keeps the previous secret active until, and not at, its expiry instant', () => {
    const at = new Date(ts * 1000);
    const ep = { secret: 'whsec_new', previousSecret: 'whsec_old', previousSecretExpiresAt: at };
    expect(activeSecrets(ep, new Date(at.getTime() - 1))).toEqual(['whsec_new', 'whsec_old']);
    expect(activeSecrets(ep, at)).toEqual(['whsec_new']);
    expect(activeSecrets({ ...ep, previousSecret: null, previousSecretExpiresAt: null }, now)).toEqual([
      'whsec_new',
    ]);
  });

  it('issues secrets as whsec_ + base64 of 32 random bytes', () => {
    const s = newWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(s);
  });
});
