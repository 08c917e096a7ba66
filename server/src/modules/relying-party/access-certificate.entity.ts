import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/**
 * What a verifier key and its chains are for: `access` signs requests for the hosted host under a chain a real CA
 * issued (operator CLI); `registrar` is the service's own CA in registrar mode; `business` signs the requests of
 * one business in one environment under a leaf the registrar issued (ADR 0034).
 */
export type VerifierKeyPurpose = 'access' | 'registrar' | 'business' | 'reader' | 'business_access';

/** A P-256 signing key of the verifier, the private half sealed under the local master key (never in code). */
@Entity('verifier_key')
@Index('IDX_verifier_key_scope', ['purpose', 'host', 'businessId', 'environment'])
export class VerifierKeyEntity {
  /** `vk_…`. */
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(16), name: 'purpose' }) purpose!: VerifierKeyPurpose;
  @Column({ ...str(255), name: 'host' }) host!: string;
  @Column({ ...str(40, true), name: 'business_id' }) businessId!: string | null;
  @Column({ ...str(16, true), name: 'environment' }) environment!: string | null;
  /** The public JWK (JSON), to match an imported leaf against. */
  @Column({ ...text(), name: 'public_jwk' }) publicJwk!: string;
  @Column({ ...text(), name: 'private_key_enc' }) privateKeyEnc!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'retired_at' }) retiredAt!: Date | null;
}

/**
 * A certificate chain for one verifier key: imported by the operator (access) or issued by the registrar
 * (registrar, business). The newest chain of a scope whose retired_at is NULL is the current one; a newer one
 * retires it (kept for the record).
 */
@Entity('verifier_chain')
@Index('IDX_verifier_chain_scope', ['purpose', 'host', 'businessId', 'environment', 'retiredAt'])
@Index('UQ_verifier_chain_leaf', ['leafSha256'], { unique: true })
export class VerifierChainEntity {
  /** `vch_…`. */
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(40), name: 'key_id' }) keyId!: string;
  @Column({ ...str(16), name: 'purpose' }) purpose!: VerifierKeyPurpose;
  @Column({ ...str(255), name: 'host' }) host!: string;
  @Column({ ...str(40, true), name: 'business_id' }) businessId!: string | null;
  @Column({ ...str(16, true), name: 'environment' }) environment!: string | null;
  /** JSON array of base64 DER certificates, leaf first, without the root (the JOSE `x5c` header). */
  @Column({ ...text(), name: 'x5c' }) x5c!: string;
  /** Base64 DER of the root (trust anchor); never sent in x5c. */
  @Column({ ...text(), name: 'root_certificate' }) rootCertificate!: string;
  /** Hex SHA-256 of the leaf DER: one chain per leaf. */
  @Column({ ...str(64), name: 'leaf_sha256' }) leafSha256!: string;
  @Column({ ...time(), name: 'not_before' }) notBefore!: Date;
  @Column({ ...time(), name: 'not_after' }) notAfter!: Date;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'retired_at' }) retiredAt!: Date | null;
}
