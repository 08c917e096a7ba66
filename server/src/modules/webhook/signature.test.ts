import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './signature';

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
