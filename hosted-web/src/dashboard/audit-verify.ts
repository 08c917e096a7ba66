// Owns the in-browser check of an audit record (session detail, "Verify signature"), with WebCrypto only, so
// the dashboard never asks the server whether the server's own record is genuine. It redoes exactly what
// server/src/modules/audit (signing) and server/src/tools/verify-audit.ts (offline check) do:
//   1. content = the record without service_signature, canonicalized with RFC 8785 (JCS);
//   2. SHA-256 of the canonical UTF-8 bytes must equal the record's stored digest (hex), when one is given;
//   3. the key whose kid is service_signature.kid in GET /.well-known/service-audit-jwks.json (EC P-256);
//   4. service_signature.value is base64url DER ECDSA; WebCrypto wants raw r||s (2 x 32 bytes).
// The server signs the 32-byte digest itself (KMS "sign digest"). WebCrypto's ECDSA verify hashes its input,
// so it is given the canonical bytes with hash SHA-256: ECDSA over SHA-256(canonical) is the same signature.
// Passing the digest instead would hash twice and never verify.
// No DOM or framework imports: the unit test runs this module in Node's WebCrypto.

export interface AuditJwks {
  keys: Array<Record<string, unknown>>;
}

export type AuditVerdict = { ok: true; kid: string; digest: string } | { ok: false; reason: string };

/** RFC 8785 canonical JSON: sorted keys (UTF-16 code units), ECMAScript number and string serialization. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('number has no JSON representation');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  throw new Error(`a ${typeof value} has no JSON representation`);
}

const B64URL = /^[A-Za-z0-9_-]+$/;

function base64urlBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(s.length / 4) * 4, '=');
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const hex = (b: ArrayBuffer): string =>
  Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');

/** DER ECDSA-Sig-Value (SEQUENCE of two INTEGERs) to the 64-byte r||s WebCrypto verifies; null if malformed. */
export function derToRawSignature(der: Uint8Array, size = 32): Uint8Array<ArrayBuffer> | null {
  let i = 0;
  const len = (): number | null => {
    const first = der[i++];
    if (first === undefined) return null;
    if (first < 0x80) return first;
    if (first !== 0x81) return null; // a P-256 signature is never longer than 255 bytes
    const n = der[i++];
    return n === undefined || n < 0x80 ? null : n;
  };
  if (der[i++] !== 0x30) return null;
  const seqLen = len();
  if (seqLen === null || i + seqLen !== der.length) return null;
  const out = new Uint8Array(size * 2);
  for (const at of [0, size]) {
    if (der[i++] !== 0x02) return null;
    const n = len();
    if (n === null || n === 0 || i + n > der.length) return null;
    let int = der.subarray(i, i + n);
    i += n;
    while (int.length > size && int[0] === 0) int = int.subarray(1); // DER's sign byte
    if (int.length > size) return null;
    out.set(int, at + size - int.length);
  }
  return i === der.length ? out : null;
}

/**
 * Verifies an audit record (the body of GET /v1/audits/{id}) against the public key set. `digest` is the
 * stored hex digest the dashboard was given with the record; when present the recomputed hash must equal it.
 */
export async function verifyAuditRecord(
  record: unknown,
  jwks: AuditJwks,
  digest?: string | null,
): Promise<AuditVerdict> {
  const fail = (reason: string): AuditVerdict => ({ ok: false, reason });
  if (!record || typeof record !== 'object' || Array.isArray(record))
    return fail('the audit record is not a JSON object');
  const { service_signature: sig, ...content } = record as Record<string, unknown>;
  const s = sig as { kid?: unknown; value?: unknown } | undefined;
  if (!s || typeof s.kid !== 'string' || typeof s.value !== 'string' || !B64URL.test(s.value))
    return fail('service_signature {kid, value} is missing or malformed');
  const jwk = (Array.isArray(jwks?.keys) ? jwks.keys : []).find((k) => k.kid === s.kid);
  if (!jwk) return fail(`no key with kid ${s.kid} in the public key set`);
  // one key, one purpose (ADR 0047): a receipt-seal key never signs an audit record
  if (jwk.purpose === 'receipt-seal') return fail(`the key ${s.kid} is a receipt-seal key, not an audit key`);
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') return fail('the key is not an EC P-256 key');

  let canonical: Uint8Array<ArrayBuffer>;
  try {
    canonical = new TextEncoder().encode(canonicalJson(content));
  } catch {
    return fail('the record cannot be canonicalized');
  }
  const computed = hex(await crypto.subtle.digest('SHA-256', canonical));
  if (digest != null && computed !== digest.toLowerCase())
    return fail('the record does not match its digest (its content was changed)');

  const raw = derToRawSignature(base64urlBytes(s.value));
  if (!raw) return fail('the signature is not a DER ECDSA P-256 signature');
  let ok: boolean;
  try {
    const key = await crypto.subtle.importKey(
      'jwk',
      { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string, ext: true },
      { name: 'ECDSA', namedCurve: 'P-256' },
      false,
      ['verify'],
    );
    ok = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, raw, canonical);
  } catch {
    return fail('the public key cannot be used');
  }
  return ok ? { ok: true, kid: s.kid, digest: computed } : fail('the signature does not match the record');
}

let jwksOnce: Promise<AuditJwks> | null = null;

/** The public key set, fetched once per page (a failed fetch is retried on the next call). */
export function fetchAuditJwks(baseUrl = ''): Promise<AuditJwks> {
  if (!jwksOnce) {
    jwksOnce = fetch(`${baseUrl}/.well-known/service-audit-jwks.json`, {
      headers: { accept: 'application/json' },
    }).then(async (res) => {
      if (!res.ok) throw new Error(`the public key set answered ${res.status}`);
      return (await res.json()) as AuditJwks;
    });
    jwksOnce.catch(() => {
      jwksOnce = null;
    });
  }
  return jwksOnce;
}
