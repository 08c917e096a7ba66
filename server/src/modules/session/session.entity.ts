import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';
import type { SessionStatus } from './session.machine';

/** A run of a pinned workflow revision. Every state change is a guarded write on (status, version). */
@Entity('session')
@Index('IDX_session_business_created', ['businessId', 'createdAt'])
@Index('IDX_session_status_expires', ['status', 'expiresAt'])
@Index('IDX_session_status_decision_due', ['status', 'decisionDueAt'])
@Index('IDX_session_status_step_expires', ['status', 'stepExpiresAt'])
// The Idempotency-Key reservation (ADR 0024): at most one session per key and tenant. Sessions created without
// a key hold NULL, which a unique index admits any number of times (MySQL, MariaDB, SQLite).
@Index('IDX_session_idem_key', ['businessId', 'environment', 'idemKey'], { unique: true })
export class SessionEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...idCol(), name: 'workflow_id' }) workflowId!: string;
  @Column({ ...int(), name: 'workflow_revision' }) workflowRevision!: number;
  @Column({ ...str(24), name: 'status' }) status!: SessionStatus;
  @Column({ ...int(), name: 'version' }) version!: number;
  /** Zero-based index of the step in progress (or next to start). */
  @Column({ ...int(), name: 'current_stage' }) currentStage!: number;
  @Column({ ...text(true), name: 'metadata' }) metadata!: string | null;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
  @Column({ ...time(true), name: 'step_expires_at' }) stepExpiresAt!: Date | null;
  /** At a gate (awaiting_decision): when the business's decision is due (ADR 0008). */
  @Column({ ...time(true), name: 'decision_due_at' }) decisionDueAt!: Date | null;
  /** When session.decision_due was queued for the current gate (at most once per gate). */
  @Column({ ...time(true), name: 'decision_reminded_at' }) decisionRemindedAt!: Date | null;
  /** SHA-256 of the session id and the server-issued browser cookie that started it (browser-binding.ts). */
  @Column({ ...str(64, true), name: 'binding_hash' }) bindingHash!: string | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
  @Column({ ...time(true), name: 'ended_at' }) endedAt!: Date | null;
  /** JSON FailureReason of a failed or expired session (session.state.ts), else NULL. */
  @Column({ ...text(true), name: 'failure_reason' }) failureReason!: string | null;
  /** Where the hosted page offers the way back after the end; on a registered origin (ADR 0019). */
  @Column({ ...str(2048, true), name: 'return_url' }) returnUrl!: string | null;
  /**
   * SHA-256 hex of the Idempotency-Key that created the session: it reserves the key for as long as the session
   * exists (spec 4.1 rule 1, ADR 0048); NULL for a create without a key.
   */
  @Column({ ...str(64, true), name: 'idem_key' }) idemKey!: string | null;
  /**
   * RFC 7638 thumbprint of the first step's holder key while the session runs (ADR 0046): what later steps are
   * bound to. Internal: no view, result, event or audit record reads it; cleared when the session ends.
   */
  @Column({ ...str(64, true), name: 'anchor_holder_key' }) anchorHolderKey!: string | null;
  /**
   * When the person started the session (the Start move): the support timeline's `started` entry (ADR 0074).
   * NULL before Start, and on sessions started before the column, whose entry is a session_event row.
   */
  @Column({ ...time(true), name: 'started_at' }) startedAt!: Date | null;
}
