// Owns the KMS abstraction: (1) audit signing: key versions addressed by a cloud-style resource name (kid),
// signing of a precomputed SHA-256 digest, and the public key set. Providers: local (this repo); Google Cloud
// KMS asymmetricSign({digest: {sha256}}) and AWS KMS Sign(MessageType DIGEST) have the same semantics and also
// return ASN.1 DER, so a cloud provider is a thin adapter over this interface. (2) envelope encryption of
// evidence: a fresh 256-bit data key per record, returned in clear and wrapped under a key-encryption key that
// never leaves the KMS (AWS GenerateDataKey/Decrypt; GCP: local random key + Encrypt/Decrypt). The two
// purposes use separate keys: the audit signing key never encrypts, the evidence key never signs.

import type { EntityManager } from 'typeorm';

/**
 * Asymmetric signing keys: audit records, and the seal over a receipt PDF (ADR 0047: one key, one purpose;
 * both are published in the service's key set, each key with its purpose).
 */
export type KmsSigningPurpose = 'audit-signing' | 'receipt-seal';
export const KMS_SIGNING_PURPOSES: readonly KmsSigningPurpose[] = ['audit-signing', 'receipt-seal'];
/** Symmetric key-encryption keys that wrap data keys (encrypted evidence). */
export type KmsEncryptionPurpose = 'evidence-encryption';
export type KmsPurpose = KmsSigningPurpose | KmsEncryptionPurpose;

/** A data key for one envelope: use `plaintext` once, store only `wrapped` and `kid`. */
export interface DataKey {
  /** Key version of the key-encryption key that wrapped this data key. */
  kid: string;
  /** 32 bytes (AES-256). */
  plaintext: Uint8Array;
  /** The data key encrypted under `kid` (opaque to callers). */
  wrapped: string;
}

/** One public key of the audit key set (spec 2.5). A type alias (not an interface) so it is a plain JWK. */
export type AuditJwk = {
  kty: 'EC';
  crv: 'P-256';
  alg: 'ES256';
  use: 'sig';
  kid: string;
  x: string;
  y: string;
  /** What the key signs, as published in the service's key set (absent in key sets saved before ADR 0047). */
  purpose?: KmsSigningPurpose;
};

/**
 * `m`: the caller's transaction, when it calls from inside one. A provider that reads its key versions from the
 * database reads them through `m` (never another pool connection: ADR 0044) and caches them in-process.
 */
export interface KmsProvider {
  /** The key version that signs now; the local provider creates version 1 on first use. */
  currentKeyVersion(purpose: KmsPurpose, m?: EntityManager): Promise<string>;
  /**
   * ECDSA P-256 signature (ASN.1 DER) whose signed hash is exactly `digest` (32 bytes); no further hashing.
   * `message`, when the caller has it, is what `digest` is the SHA-256 of: a provider that signs in-process
   * may sign it with node:crypto (which hashes its input itself and cannot take a bare digest) instead of
   * signing the digest in JavaScript. The signature verifies the same either way.
   */
  signDigest(kid: string, digest: Uint8Array, m?: EntityManager, message?: Uint8Array): Promise<Uint8Array>;
  /** Current and retained (not retired) verification keys. */
  publicJwks(purpose: KmsSigningPurpose): Promise<AuditJwk[]>;
  /** A fresh AES-256 data key, wrapped under the current key-encryption key of `purpose`. */
  generateDataKey(purpose: KmsEncryptionPurpose, m?: EntityManager): Promise<DataKey>;
  /** Unwraps a data key produced by generateDataKey (any non-retired version of that key). */
  decryptDataKey(kid: string, wrapped: string, m?: EntityManager): Promise<Uint8Array>;
}
