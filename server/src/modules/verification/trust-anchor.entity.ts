import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/**
 * An X.509 trust anchor (root or intermediate CA certificate) through which an issuer is trusted for an
 * environment: a credential whose x5c chain validates to it, with a leaf bound to the issuer, is trusted.
 */
@Entity('trust_anchor')
@Index('IDX_trust_anchor_iss_env', ['issuer', 'environment'])
@Index('IDX_trust_anchor_route', ['routeId', 'issuer', 'environment'])
export class TrustAnchorEntity {
  @PrimaryColumn(idCol()) id!: string;
  /** The issuer identifier (`iss`) this anchor is trusted for. */
  @Column({ ...str(500), name: 'issuer' }) issuer!: string;
  /** The credential route this anchor trusts for (ADR 0036); NULL: attached to no route, trusts nobody. */
  @Column({ ...str(40, true), name: 'route_id' }) routeId!: string | null;
  /** The trust list this anchor came from (NULL: configured by an operator). */
  @Column({ ...str(40, true), name: 'trust_list_id' }) trustListId!: string | null;
  /** The list's trusted entity whose service identity this is (status lists must chain to the same entity). */
  @Column({ ...str(500, true), name: 'entity' }) entity!: string | null;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...str(200), name: 'name' }) name!: string;
  /** The anchor certificate, PEM. */
  @Column({ ...text(), name: 'certificate' }) certificate!: string;
  /** SHA-256 of the DER certificate, hex. */
  @Column({ ...str(64), name: 'fingerprint' }) fingerprint!: string;
  @Column({ ...time(), name: 'not_after' }) notAfter!: Date;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'retired_at' }) retiredAt!: Date | null;
}
