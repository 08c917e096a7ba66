import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/**
 * The verifier's request-signing identity for one hosted host: an X.509 leaf certificate (SAN dNSName = host)
 * issued by a local root, and the leaf's P-256 private key sealed under the local master key.
 */
@Entity('verifier_identity')
@Index('IDX_verifier_identity_host', ['host'])
export class VerifierIdentityEntity {
  /** `vid_` + hash of the host, so two nodes creating the identity at once collide on the primary key. */
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(255), name: 'host' }) host!: string;
  /** JSON array of base64 DER certificates, leaf first, without the root (the JOSE `x5c` header). */
  @Column({ ...text(), name: 'x5c' }) x5c!: string;
  /** Base64 DER of the root (trust anchor) certificate; wallets are given it out of band, never in x5c. */
  @Column({ ...text(), name: 'root_certificate' }) rootCertificate!: string;
  @Column({ ...text(), name: 'private_key_enc' }) privateKeyEnc!: string;
  @Column({ ...time(), name: 'not_after' }) notAfter!: Date;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
