// Owns offline verification of an audit record (shared by tests and the verify-audit command).
//
// Verifying with standard tools only (bash + node for the JSON steps + openssl):
//
//   # 1. audit.json is the body of GET /v1/audits/{id}; jwks.json the body of
//   #    GET /.well-known/service-audit-jwks.json. Pick the key whose kid equals service_signature.kid
//   #    and convert it to PEM:
//   node -e 'const c=require("crypto"),f=require("fs");const a=JSON.parse(f.readFileSync("audit.json"));
//     const k=JSON.parse(f.readFileSync("jwks.json")).keys.find(k=>k.kid===a.service_signature.kid);
//     f.writeFileSync("key.pem",c.createPublicKey({key:k,format:"jwk"}).export({type:"spki",format:"pem"}))'
//   # 2. Remove service_signature, canonicalize the rest (RFC 8785 / JCS), SHA-256 -> 32 raw bytes:
//   node -e 'const f=require("fs");const a=JSON.parse(f.readFileSync("audit.json"));delete a.service_signature;
//     f.writeFileSync("record.json",require("canonicalize")(a))'     # npm i canonicalize (any JCS tool works)
//   openssl dgst -sha256 -binary record.json > digest.bin
//   # 3. service_signature.value is base64url DER -> sig.der:
//   node -e 'const f=require("fs");const a=JSON.parse(f.readFileSync("audit.json"));
//     f.writeFileSync("sig.der",Buffer.from(a.service_signature.value,"base64url"))'
//   # 4. Verify the DER ECDSA P-256 signature over the raw 32-byte digest:
//   openssl pkeyutl -verify -pubin -inkey key.pem -in digest.bin -sigfile sig.der
//   #    -> "Signature Verified Successfully"
//
// The same signature is an ES256 signature over the canonical bytes, so
// `openssl dgst -sha256 -verify key.pem -signature sig.der record.json` also verifies.
import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { canonicalJson } from './canonical-json';

export interface JwkSet {
  keys: Array<Record<string, unknown>>;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

/** Why a record does not verify, or null when it does. */
export function auditRecordProblem(record: unknown, jwks: JwkSet): string | null {
  if (!record || typeof record !== 'object' || Array.isArray(record))
    return 'the audit record is not a JSON object';
  const { service_signature: sig, ...content } = record as Record<string, unknown>;
  const s = sig as { kid?: unknown; value?: unknown } | undefined;
  if (!s || typeof s.kid !== 'string' || typeof s.value !== 'string' || !B64URL.test(s.value)) {
    return 'service_signature {kid, value} is missing or malformed';
  }
  const jwk = (Array.isArray(jwks?.keys) ? jwks.keys : []).find((k) => k.kid === s.kid);
  if (!jwk) return `no key with kid ${s.kid} in the key set`;
  // one key, one purpose (ADR 0047): a receipt-seal key never signs an audit record
  if (jwk.purpose === 'receipt-seal') return `the key ${s.kid} is a receipt-seal key, not an audit key`;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') return 'the key is not an EC P-256 key';
  let ok = false;
  try {
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } as JsonWebKey,
      format: 'jwk',
    });
    // ECDSA over SHA-256(canonical bytes): identical to verifying the DER signature over the 32-byte digest.
    ok = verify(
      'sha256',
      Buffer.from(canonicalJson(content), 'utf8'),
      { key, dsaEncoding: 'der' },
      Buffer.from(s.value, 'base64url'),
    );
  } catch {
    return 'the key or the signature cannot be parsed';
  }
  return ok ? null : 'the signature does not match the record';
}

export async function verifyAuditRecord(record: unknown, jwks: JwkSet): Promise<boolean> {
  return auditRecordProblem(record, jwks) === null;
}
