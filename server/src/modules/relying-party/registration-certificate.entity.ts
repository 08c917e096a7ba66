import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/**
 * A business's registration certificate (ETSI TS 119 475 `rc-wrp+jwt`) as the operator imported it, per
 * environment (issue 19, ADR 0040). The newest row of a business and environment whose revoked_at is NULL is
 * the current one; an import revokes the previous one, `registration-cert revoke` the current one (both kept).
 */
@Entity('registration_certificate')
@Index('IDX_registration_certificate_scope', ['businessId', 'environment', 'revokedAt'])
export class RegistrationCertificateEntity {
  /** `rcert_…`. */
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(40), name: 'business_id' }) businessId!: string;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  /** The compact JWS as imported. */
  @Column({ ...text(), name: 'jwt' }) jwt!: string;
  /** Its `sub`: the client_id it binds to (requests signed under another one do not carry it). */
  @Column({ ...str(255), name: 'sub' }) sub!: string;
  @Column({ ...str(255), name: 'name' }) name!: string;
  /** SHA-256 (hex) of the registrar trust anchor it chained to at import. */
  @Column({ ...str(64), name: 'anchor_sha256' }) anchorSha256!: string;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'revoked_at' }) revokedAt!: Date | null;
}
