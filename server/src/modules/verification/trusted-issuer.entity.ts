import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/**
 * An issuer trusted on one credential route (ADR 0036) and environment through a configured public key. Its key
 * also signs its status lists. route_id NULL: attached to no route, trusts nobody.
 */
@Entity('trusted_issuer')
@Index('IDX_trusted_issuer_iss_env_created', ['issuer', 'environment', 'createdAt'])
@Index('IDX_trusted_issuer_route', ['routeId', 'issuer', 'environment'])
export class TrustedIssuerEntity {
  @PrimaryColumn(idCol()) id!: string;
  /** The `iss` value of credentials from this issuer. */
  @Column({ ...str(500), name: 'issuer' }) issuer!: string;
  @Column({ ...str(40, true), name: 'route_id' }) routeId!: string | null;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...str(200), name: 'name' }) name!: string;
  /** Public JWK (JSON) of the issuer signing key. */
  @Column({ ...text(), name: 'public_jwk' }) publicJwk!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'retired_at' }) retiredAt!: Date | null;
}
