import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, time } from '../../db/columns';

/** An API key is shown once; only its SHA-256 is stored. `lookup` finds the row without the secret. */
@Entity('api_key')
@Index('IDX_api_key_lookup', ['lookup'], { unique: true })
@Index('IDX_api_key_business', ['businessId'])
export class ApiKeyEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...str(32), name: 'lookup' }) lookup!: string;
  @Column({ ...str(64), name: 'secret_hash' }) secretHash!: string;
  @Column({ ...str(200), name: 'label' }) label!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'revoked_at' }) revokedAt!: Date | null;
  /** Comma-separated scopes; NULL = full access (every key issued before scopes existed). */
  @Column({ ...str(200, true), name: 'scopes' }) scopes!: string | null;
  /** The dashboard user id (or `operator:<name>`) that created the key; NULL for seeded keys. */
  @Column({ ...str(80, true), name: 'created_by' }) createdBy!: string | null;
  @Column({ ...time(true), name: 'last_used_at' }) lastUsedAt!: Date | null;
}
