import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

/**
 * One entry of a session's support timeline, written in the same transaction as the change it reports
 * (insert-only). `kind` is one of SESSION_EVENT_KINDS; `code` is the refusal or failure code where there is one.
 */
@Entity('session_event')
@Index('IDX_session_event_session', ['sessionId', 'at'])
export class SessionEventEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...time(), name: 'at' }) at!: Date;
  /** Orders entries written at the same `at` (e.g. in one transaction) in the order they were written. */
  @Column({ ...str(20), name: 'order_key' }) orderKey!: string;
  @Column({ ...str(40), name: 'kind' }) kind!: string;
  @Column({ ...int(true), name: 'stage' }) stage!: number | null;
  @Column({ ...str(64, true), name: 'code' }) code!: string | null;
  /** JSON object with kind-specific facts (request id, transport, audit id); never personal data. */
  @Column({ ...text(true), name: 'detail' }) detail!: string | null;
}
