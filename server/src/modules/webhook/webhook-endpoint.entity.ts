import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, str, time } from '../../db/columns';

/** One webhook endpoint per business and environment. The secret is write-only to clients. */
@Entity('webhook_endpoint')
@Index('IDX_webhook_endpoint_business_env', ['businessId', 'environment'], { unique: true })
export class WebhookEndpointEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...str(2048), name: 'url' }) url!: string;
  @Column({ ...str(128), name: 'secret' }) secret!: string;
  /** The secret replaced by the last rotation; it keeps signing (next to `secret`) until its expiry. */
  @Column({ ...str(128, true), name: 'previous_secret' }) previousSecret!: string | null;
  @Column({ ...time(true), name: 'previous_secret_expires_at' }) previousSecretExpiresAt!: Date | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}
