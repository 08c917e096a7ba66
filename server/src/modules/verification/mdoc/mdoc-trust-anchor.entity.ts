import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../../db/columns';

/**
 * An IACA root certificate trusted for one mdoc document type in an environment: the issuer signature
 * (COSE_Sign1 over the MSO) of a document of that type must come from a document signer certificate that
 * chains to one of these. Scoped per docType so that, say, a driving-licence authority cannot issue PIDs.
 * Kept apart from the SD-JWT VC trust (`trusted_issuer`, `trust_anchor`), which is keyed by `iss`; an mdoc has
 * no `iss`.
 */
@Entity('mdoc_trust_anchor')
@Index('IDX_mdoc_trust_anchor_env_doctype', ['environment', 'doctype'])
@Index('IDX_mdoc_trust_anchor_route', ['routeId', 'environment', 'doctype'])
export class MdocTrustAnchorEntity {
  @PrimaryColumn(idCol()) id!: string;
  /** The credential route this anchor trusts for (ADR 0036); NULL: attached to no route, trusts nobody. */
  @Column({ ...str(40, true), name: 'route_id' }) routeId!: string | null;
  /** The trust list this anchor came from (NULL: configured by an operator). */
  @Column({ ...str(40, true), name: 'trust_list_id' }) trustListId!: string | null;
  /** The list's trusted entity whose service identity this is (status lists must chain to the same entity). */
  @Column({ ...str(500, true), name: 'entity' }) entity!: string | null;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  /** The docType this anchor may issue (e.g. `eu.europa.ec.eudi.pid.1`). */
  @Column({ ...str(200), name: 'doctype' }) doctype!: string;
  @Column({ ...str(200), name: 'name' }) name!: string;
  /** Subject DN of the IACA certificate (for people and audit records; matching uses the certificate). */
  @Column({ ...str(500), name: 'subject' }) subject!: string;
  /** The IACA certificate, PEM. */
  @Column({ ...text(), name: 'certificate_pem' }) certificatePem!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'retired_at' }) retiredAt!: Date | null;
}
