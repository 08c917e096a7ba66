// Owns ECDSA P-256 signing of a precomputed SHA-256 digest (what a cloud KMS asymmetric sign does).
// node:crypto cannot do this (crypto.sign on an EC key always hashes its input again), so the local
// provider uses @noble/curves, an audited constant-time implementation, with prehash disabled and
// RFC 6979 deterministic nonces.
import { p256 } from '@noble/curves/nist.js';

/** Signs a 32-byte digest with the private scalar `d` (32 bytes, big-endian). Returns ASN.1 DER. */
export function signDigestP256(d: Uint8Array, digest: Uint8Array): Buffer {
  if (digest.length !== 32) throw new Error('digest must be 32 bytes (SHA-256)');
  return Buffer.from(p256.sign(digest, d, { prehash: false, format: 'der' }));
}
