import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { bool, idCol, int, str, text, time } from '../../db/columns';

/**
 * A workflow's editable draft. Published revisions live in workflow_revision and never change. A workflow
 * belongs to one environment, set at creation from the creating credential (ADR 0007).
 */
@Entity('workflow')
@Index('IDX_workflow_business', ['businessId'])
export class WorkflowEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(16), name: 'environment', default: 'sandbox' }) environment!: 'sandbox' | 'production';
  @Column({ ...str(200), name: 'name' }) name!: string;
  @Column({ ...bool(), name: 'api_only' }) apiOnly!: boolean;
  /** JSON array of step definitions (see workflow.steps.ts). */
  @Column({ ...text(), name: 'draft_steps' }) draftSteps!: string;
  /** JSON IntendedUse (workflow.intended-use.ts, ADR 0042), or null: the business's default purpose. */
  @Column({ ...text(true), name: 'intended_use' }) intendedUse!: string | null;
  @Column({ ...int(), name: 'latest_revision' }) latestRevision!: number;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}
