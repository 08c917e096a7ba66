import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bool, idCol, str, text, time } from '../../db/columns';

/**
 * A reader certificate (ISO 18013-5 reader authentication, ADR 0049): the chain a wallet ecosystem issued for
 * the hosted domain (Apple's for Verify with Wallet on the Web), bound to one credential route and environment.
 * Every current one (retired_at NULL, valid now) of a step's routes signs readerAuthAll; several may be current
 * at once, which is how a rotation runs without downtime. The key is a verifier_key row of purpose 'reader'.
 */
@Entity('reader_certificate')
@Index('IDX_reader_certificate_scope', ['routeId', 'environment', 'retiredAt'])
@Index('UQ_reader_certificate_leaf', ['leafSha256'], { unique: true })
export class ReaderCertificateEntity {
  /** `rdc_…`. */
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(40), name: 'key_id' }) keyId!: string;
  @Column({ ...str(64), name: 'route_id' }) routeId!: string;
  @Column({ ...str(16), name: 'environment' }) environment!: string;
  @Column({ ...str(255), name: 'domain' }) domain!: string;
  /** The route also asks for the per-document readerAuth, signed with this certificate. */
  @Column({ ...bool(), name: 'per_document' }) perDocument!: boolean;
  /** JSON array of base64 DER certificates, leaf first (the COSE x5chain), without a self-signed root. */
  @Column({ ...text(), name: 'x5chain' }) x5chain!: string;
  @Column({ ...str(64), name: 'leaf_sha256' }) leafSha256!: string;
  @Column({ ...time(), name: 'not_before' }) notBefore!: Date;
  @Column({ ...time(), name: 'not_after' }) notAfter!: Date;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'retired_at' }) retiredAt!: Date | null;
}
