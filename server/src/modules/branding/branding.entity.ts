import { Column, Entity, PrimaryColumn } from 'typeorm';
import { idCol, str, text, time } from '../../db/columns';

/** The hosted page settings of a business in one environment: return_url origins and branding (ADR 0019). */
@Entity('hosted_page_settings')
export class HostedPageSettingsEntity {
  @PrimaryColumn({ ...idCol(), name: 'business_id' }) businessId!: string;
  @PrimaryColumn({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  /** JSON array of normalised origins (`scheme://host[:port]`). */
  @Column({ ...text(), name: 'origins' }) origins!: string;
  /** Shown instead of the business name on the hosted page; null: the business name. */
  @Column({ ...str(80, true), name: 'display_name' }) displayName!: string | null;
  /** `#rrggbb` with at least 4.5:1 contrast against white (button text); null: the default accent. */
  @Column({ ...str(7, true), name: 'accent_color' }) accentColor!: string | null;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}
