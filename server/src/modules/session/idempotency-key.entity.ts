import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, time } from '../../db/columns';

/** Idempotency-Key reservation, scoped to business and environment, kept 24 h then purged by the sweeper. */
@Entity('idempotency_key')
@Index('IDX_idempotency_key_expires', ['expiresAt'])
export class IdempotencyKeyEntity {
  @PrimaryColumn({ ...idCol(), name: 'business_id' }) businessId!: string;
  @PrimaryColumn({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @PrimaryColumn({ ...str(255), name: 'idem_key' }) key!: string;
  @Column({ ...str(40, true), name: 'session_id' }) sessionId!: string | null;
  @Column({ ...int(true), name: 'status_code' }) statusCode!: number | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
}
