// Owns compact-JWS ES256 verification on the presentation hot path (ADR 0021). jose's compactVerify goes through
// WebCrypto: an async job on the thread pool plus a key import per call, about 3-4x the cost of the signature
// check itself. Here the check is node:crypto's one-shot synchronous `verify` (the same call the bench's raw
// ES256 baseline makes) with the checks compactVerify made for us kept explicit: exactly three base64url
// parts, a JSON object header, `alg` in the allow-list (ES256 only: never `none`, never a MAC), no `crit`
// (we understand no extension), a 64-byte IEEE P1363 signature, a P-256 key.
//
// Keys: imported once per distinct key by a PublicKeyCache, which the verifier owns (an instance field, not a
// module global). It is content-addressed by the key's exact public members, so nothing mutable is cached: a
// changed or retired key is simply a different (or no longer requested) entry. OpenSSL's import of a JWK checks
// the point (a scalar multiplication, about the cost of one verify), which is why it is worth remembering.
import { createPublicKey, hash, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import type { JWK } from 'jose';

const B64URL = /^[A-Za-z0-9_-]*$/;

/** The public members of a P-256 JWK (RFC 7638 member order); throws when it is not one. */
function p256PublicJwk(jwk: JWK): JsonWebKey {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string')
    throw new Error('the key is not a P-256 public key');
  return { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
}

/** The public members of a P-256 JWK as canonical JSON (RFC 7638); throws when it is not one. */
const p256Members = (jwk: JWK): string => JSON.stringify(p256PublicJwk(jwk));

/** A P-256 public key object from a JWK (private members ignored); OpenSSL checks the point is on the curve. */
export function publicKeyOf(jwk: JWK): KeyObject {
  return createPublicKey({ key: p256PublicJwk(jwk), format: 'jwk' });
}

/**
 * publicKeyOf memoized by the key's own public members (RFC 7638 form), bounded (`max` entries, oldest out;
 * 0 imports on every call). A KeyObject is a pure function of those members, and a key OpenSSL refuses is
 * never remembered. Owned by one verifier instance.
 */
export class PublicKeyCache {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly max = 1000) {}

  get(jwk: JWK): KeyObject {
    const id = p256Members(jwk);
    let key = this.keys.get(id);
    if (!key) {
      key = publicKeyOf(jwk);
      if (this.max <= 0) return key;
      if (this.keys.size >= this.max) this.keys.delete(this.keys.keys().next().value as string);
      this.keys.set(id, key);
    }
    return key;
  }
}

/** RFC 7638 SHA-256 thumbprint (base64url) of a P-256 JWK: what jose's calculateJwkThumbprint computes. */
export function p256Thumbprint(jwk: JWK): string {
  return hash('sha256', p256Members(jwk), 'base64url');
}

/** A compact JWS split and decoded once: its JSON-object header and payload, and what the signature covers. */
export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `<header>.<payload>` exactly as received (what the signature covers). */
  signingInput: string;
  /** The third part, base64url, as received. */
  signature: string;
}

const jsonObjectOf = (part: string, what: string): Record<string, unknown> => {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new Error(`the ${what} is not JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new Error(`the ${what} is not an object`);
  return v as Record<string, unknown>;
};

/**
 * Splits and decodes a compact JWS (what jose's decodeProtectedHeader and decodeJwt do, for both parts in one
 * pass): exactly three parts, header and payload base64url of JSON objects. Nothing is verified here; throws
 * (with a reason) on anything malformed. The verifier decodes each JWS of a presentation once and checks its
 * signature with verifyEs256 (ADR 0021, round 3).
 */
export function decodeCompactJws(jws: string): DecodedJws {
  const parts = jws.split('.');
  if (parts.length !== 3) throw new Error('not a compact JWS');
  const [h, p, s] = parts as [string, string, string];
  if (h.length === 0 || !B64URL.test(h) || !B64URL.test(p)) throw new Error('not base64url');
  return {
    header: jsonObjectOf(h, 'protected header'),
    payload: jsonObjectOf(p, 'payload'),
    signingInput: jws.slice(0, h.length + 1 + p.length),
    signature: s,
  };
}

/**
 * Verifies a decoded compact ES256 JWS with `key`; throws (with a reason, never the key) when anything is off:
 * `alg` other than ES256 (never `none`, never a MAC), a `crit` header, a signature that is not 64 bytes of
 * base64url, or a signature that does not verify.
 */
export function verifyEs256(jws: DecodedJws, key: KeyObject): void {
  if (jws.header.alg !== 'ES256') throw new Error('alg is not ES256');
  if (jws.header.crit !== undefined) throw new Error('crit extensions are not supported');
  if (!B64URL.test(jws.signature)) throw new Error('not base64url');
  const sig = Buffer.from(jws.signature, 'base64url');
  if (sig.length !== 64) throw new Error('the signature is not 64 bytes');
  if (!verify('sha256', Buffer.from(jws.signingInput, 'ascii'), { key, dsaEncoding: 'ieee-p1363' }, sig))
    throw new Error('signature verification failed');
}

/** decodeCompactJws then verifyEs256: one compact ES256 JWS checked with `key` (payload not returned). */
export function verifyCompactEs256(jws: string, key: KeyObject): void {
  verifyEs256(decodeCompactJws(jws), key);
}
