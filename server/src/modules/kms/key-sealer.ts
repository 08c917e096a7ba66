// Owns the sealing of small secrets at rest (verifier private keys, response keys, webhook secrets, browser
// binding keys) under the local master key: one atom every module that keeps a secret uses.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of small secrets (private keys) under the local master key (DATA_DIR), the same master
 * key the local KMS provider uses. The AAD names the row the secret belongs to, so a sealed value cannot be
 * moved to another row. Format: `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export class KeySealer {
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  }

  seal(aad: string, plaintext: Uint8Array): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.masterKey, iv);
    c.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([c.update(plaintext), c.final()]);
    return ['v1', iv, c.getAuthTag(), ct]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(aad: string, sealed: string): Buffer {
    const [v, iv, tag, ct] = sealed.split('.');
    if (v !== 'v1' || !iv || !tag || !ct) throw new Error('unreadable sealed value');
    const d = createDecipheriv('aes-256-gcm', this.masterKey, Buffer.from(iv, 'base64url'));
    d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]);
  }
}
