import { Column, Entity, PrimaryColumn } from 'typeorm';
import { idCol, str, time } from '../../db/columns';

/**
 * What a wallet is told about the business as the relying party, per environment (issue 19, ADR 0035): shown
 * by wallets (registrar leaf metadata, the sandbox registration certificate). Nulls: not set.
 */
@Entity('relying_party')
export class RelyingPartyEntity {
  @PrimaryColumn({ ...idCol(), name: 'business_id' }) businessId!: string;
  @PrimaryColumn({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...str(200, true), name: 'legal_name' }) legalName!: string | null;
  @Column({ ...str(80, true), name: 'display_name' }) displayName!: string | null;
  @Column({ ...str(254, true), name: 'contact_email' }) contactEmail!: string | null;
  @Column({ ...str(512, true), name: 'privacy_policy_url' }) privacyPolicyUrl!: string | null;
  /** The business's default intended use (purpose text) shown by a wallet for every workflow. */
  @Column({ ...str(300, true), name: 'purpose' }) purpose!: string | null;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}
