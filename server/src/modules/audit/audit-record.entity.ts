import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

/** Signed audit record of a completed step. Evidence: insert-only. `record` is the canonical JSON (RFC 8785). */
@Entity('audit_record')
@Index('IDX_audit_record_session', ['sessionId', 'stage'], { unique: true })
export class AuditRecordEntity {
  @PrimaryColumn({ ...str(80), name: 'id' }) id!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @Column({ ...int(), name: 'stage' }) stage!: number;
  @Column({ ...text(), name: 'record' }) record!: string;
  /** Hex SHA-256 of `record`. */
  @Column({ ...str(64), name: 'digest' }) digest!: string;
  @Column({ ...str(300), name: 'kid' }) kid!: string;
  @Column({ ...str(200), name: 'signature' }) signature!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}
