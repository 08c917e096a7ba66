import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

/**
 * Transactional outbox row: written in the same transaction as the state change it reports.
 * `body` is the exact JSON that is signed and POSTed on every attempt.
 */
@Entity('webhook_event')
@Index('IDX_webhook_event_delivery', ['deliveryId'], { unique: true })
@Index('IDX_webhook_event_session_seq', ['sessionId', 'sequence'], { unique: true })
@Index('IDX_webhook_event_due', ['status', 'nextAttemptAt'])
@Index('IDX_webhook_event_claim', ['claimToken'])
export class WebhookEventEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...idCol(), name: 'session_id' }) sessionId!: string;
  /** Order of events within the session; the relay delivers strictly in this order. */
  @Column({ ...int(), name: 'sequence' }) sequence!: number;
  @Column({ ...str(64), name: 'event' }) event!: string;
  @Column({ ...int(), name: 'counter' }) counter!: number;
  @Column({ ...str(200), name: 'delivery_id' }) deliveryId!: string;
  @Column({ ...text(), name: 'body' }) body!: string;
  @Column({ ...str(16), name: 'status' }) status!: 'pending' | 'delivered' | 'failed';
  @Column({ ...int(), name: 'attempts' }) attempts!: number;
  @Column({ ...time(), name: 'next_attempt_at' }) nextAttemptAt!: Date;
  @Column({ ...str(500, true), name: 'last_error' }) lastError!: string | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'delivered_at' }) deliveredAt!: Date | null;
  /** Fencing token of the relay claim that holds this row (ADR 0014); every outcome write is guarded by it. */
  @Column({ ...str(40, true), name: 'claim_token' }) claimToken!: string | null;
  /** Until when that claim holds; a claim may take the row over only after it. */
  @Column({ ...time(true), name: 'lease_until' }) leaseUntil!: Date | null;
}
