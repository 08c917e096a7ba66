import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bool, idCol, int, str, text, time } from '../../db/columns';

/** An immutable published revision. Sessions pin (workflow_id, revision). Insert-only. */
@Entity('workflow_revision')
@Index('IDX_workflow_revision_wf_rev', ['workflowId', 'revision'], { unique: true })
export class WorkflowRevisionEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'workflow_id' }) workflowId!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...int(), name: 'revision' }) revision!: number;
  @Column({ ...str(200), name: 'name' }) name!: string;
  @Column({ ...bool(), name: 'api_only' }) apiOnly!: boolean;
  @Column({ ...text(), name: 'steps' }) steps!: string;
  @Column({ ...time(), name: 'published_at' }) publishedAt!: Date;
  /** JSON IntendedUse (workflow.intended-use.ts, ADR 0042), or null: the business's default purpose. */
  @Column({ ...text(true), name: 'intended_use' }) intendedUse!: string | null;
}
