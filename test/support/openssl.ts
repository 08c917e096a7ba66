// Verifies an audit record the way an auditor would, with openssl and nothing of ours:
// canonical JSON (RFC 8785) -> SHA-256 digest -> `openssl pkeyutl -verify` with the JWKS key as PEM.
import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey, type JsonWebKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import canonicalize from 'canonicalize';

export function opensslVerifyAudit(record: Record<string, unknown>, jwks: { keys: JsonWebKey[] }): boolean {
  const { service_signature, ...rest } = record as { service_signature: { kid: string; value: string } };
  const key = jwks.keys.find((k) => (k as { kid?: string }).kid === service_signature.kid);
  if (!key) return false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-'));
  try {
    const pem = createPublicKey({ key, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    fs.writeFileSync(path.join(dir, 'key.pem'), pem);
    fs.writeFileSync(
      path.join(dir, 'digest.bin'),
      createHash('sha256')
        .update(canonicalize(rest) as string, 'utf8')
        .digest(),
    );
    fs.writeFileSync(path.join(dir, 'sig.der'), Buffer.from(service_signature.value, 'base64url'));
    const out = execFileSync(
      'openssl',
      ['pkeyutl', '-verify', '-pubin', '-inkey', 'key.pem', '-in', 'digest.bin', '-sigfile', 'sig.der'],
      { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    return /Signature Verified Successfully/i.test(out);
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
