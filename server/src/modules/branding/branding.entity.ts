import { Column, Entity, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/** The origins a business registered for return_url in one environment (ADR 0019). */
@Entity('return_origins')
export class ReturnOriginsEntity {
  @PrimaryColumn({ ...idCol(), name: 'business_id' }) businessId!: string;
  @PrimaryColumn({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  /** JSON array of normalised origins (`scheme://host[:port]`). */
  @Column({ ...text(), name: 'origins' }) origins!: string;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}
