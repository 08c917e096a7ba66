import { Column, Entity, PrimaryColumn } from 'typeorm';
import { str, text, time } from '../../db/columns';

/**
 * Google Wallet's `gw_rp_metadata_bytes` for one of our signing certificates (issue 26, ADR 0050): the
 * base64url RelyingPartyMetadataBytes Google returned with the certificate, imported by the operator only when
 * their SHA-256 is the value of the certificate's extension 1.3.6.1.4.1.11129.10.1. Keyed by the leaf, so a
 * re-issued or replaced leaf never carries another leaf's metadata.
 */
@Entity('gw_rp_metadata')
export class GwRpMetadataEntity {
  /** Hex SHA-256 of the leaf DER (verifier_chain.leaf_sha256). */
  @PrimaryColumn({ ...str(64), name: 'leaf_sha256' }) leafSha256!: string;
  /** The chain's business in registrar mode (NULL: the service's own access certificate). */
  @Column({ ...str(40, true), name: 'business_id' }) businessId!: string | null;
  @Column({ ...str(16, true), name: 'environment' }) environment!: string | null;
  /** base64url RelyingPartyMetadataBytes, sent verbatim as client_metadata.gw_rp_metadata_bytes. */
  @Column({ ...text(), name: 'metadata' }) metadata!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
