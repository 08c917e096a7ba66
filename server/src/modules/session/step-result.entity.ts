import { Column, Entity, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';
import type { Primitive } from '../workflow/workflow.steps';

/** Completed result of one step. Evidence: insert-only, never updated or deleted. */
@Entity('step_result')
export class StepResultEntity {
  @PrimaryColumn({ ...idCol(), name: 'session_id' }) sessionId!: string;
  @PrimaryColumn({ type: 'int', name: 'stage' }) stage!: number;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(24), name: 'primitive' }) primitive!: Primitive;
  /** JSON of the business-visible result (claims for identify). */
  @Column({ ...text(), name: 'result' }) result!: string;
  @Column({ ...str(80), name: 'audit_id' }) auditId!: string;
  @Column({ ...time(), name: 'completed_at' }) completedAt!: Date;
}
