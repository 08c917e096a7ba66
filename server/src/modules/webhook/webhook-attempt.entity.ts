import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

/** One row per delivery attempt of an outbox event. */
@Entity('webhook_attempt')
@Index('IDX_webhook_attempt_event', ['eventId'])
@Index('IDX_webhook_attempt_log', ['businessId', 'environment', 'attemptedAt'])
export class WebhookAttemptEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'event_id' }) eventId!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...time(), name: 'attempted_at' }) attemptedAt!: Date;
  @Column({ ...int(true), name: 'status_code' }) statusCode!: number | null;
  @Column({ ...str(500, true), name: 'error' }) error!: string | null;
  @Column({ ...int(), name: 'duration_ms' }) durationMs!: number;
  /** Delivery log (NULL on attempts recorded before it existed). */
  @Column({ ...str(16, true), name: 'environment' }) environment!: 'sandbox' | 'production' | null;
  @Column({ ...str(2048, true), name: 'url' }) url!: string | null;
  /** The first RESPONSE_EXCERPT_BYTES of the receiver's answer (never anything we sent). */
  @Column({ ...text(true), name: 'response_excerpt' }) responseExcerpt!: string | null;
}
