// Owns the KMS abstraction used to sign audit records: key versions addressed by a cloud-style resource
// name (kid), signing of a precomputed SHA-256 digest, and the public key set. Providers: local (this repo);
// Google Cloud KMS asymmetricSign({digest: {sha256}}) and AWS KMS Sign(MessageType DIGEST) have the same
// semantics and also return ASN.1 DER, so a cloud provider is a thin adapter over this interface.

export type KmsPurpose = 'audit-signing';

/** One public key of the audit key set (spec 2.5). A type alias (not an interface) so it is a plain JWK. */
export type AuditJwk = {
  kty: 'EC';
  crv: 'P-256';
  alg: 'ES256';
  use: 'sig';
  kid: string;
  x: string;
  y: string;
};

export interface KmsProvider {
  /** The key version that signs now; the local provider creates version 1 on first use. */
  currentKeyVersion(purpose: KmsPurpose): Promise<string>;
  /** ECDSA P-256 signature (ASN.1 DER) whose signed hash is exactly `digest` (32 bytes); no further hashing. */
  signDigest(kid: string, digest: Uint8Array): Promise<Uint8Array>;
  /** Current and retained (not retired) verification keys. */
  publicJwks(purpose: KmsPurpose): Promise<AuditJwk[]>;
}
