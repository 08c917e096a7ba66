import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { idCol, int, str, text, time } from '../../db/columns';

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
  /**
   * SHA-256 (hex) of the logo in hosted_page_logo; null: no logo. Kept here so the hosted page still reads one
   * row per projection and never the bytes (it links to /branding/logos/<sha256>).
   */
  @Column({ ...str(64, true), name: 'logo_sha256' }) logoSha256!: string | null;
  @Column({ ...time(), name: 'updated_at' }) updatedAt!: Date;
}

/**
 * The logo of a business in one environment (ADR 0019): the exact uploaded bytes of a PNG, JPEG or WebP
 * image of at most 256 KiB, with what its header says. Served by content hash, so the index is on sha256.
 * The bytes column is MEDIUMBLOB on MySQL (BLOB stops at 64 KiB) and BLOB on SQLite, which has no
 * MEDIUMBLOB; hence one entity class per driver over the same table (data-source.ts picks one).
 */
abstract class HostedPageLogoColumns {
  @PrimaryColumn({ ...idCol(), name: 'business_id' }) businessId!: string;
  @PrimaryColumn({ ...str(16), name: 'environment' }) environment!: 'sandbox' | 'production';
  @Column({ ...str(64), name: 'sha256' }) sha256!: string;
  /** image/png, image/jpeg or image/webp: from the magic bytes, never from the upload's declared type. */
  @Column({ ...str(16), name: 'content_type' }) contentType!: 'image/png' | 'image/jpeg' | 'image/webp';
  @Column({ ...int(), name: 'width' }) width!: number;
  @Column({ ...int(), name: 'height' }) height!: number;
  @Column({ ...int(), name: 'size' }) size!: number;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}

@Entity('hosted_page_logo')
@Index('IDX_hosted_page_logo_sha256', ['sha256'])
export class HostedPageLogoMysqlEntity extends HostedPageLogoColumns {
  @Column({ type: 'mediumblob', nullable: false, name: 'bytes' }) bytes!: Buffer;
}

@Entity('hosted_page_logo')
@Index('IDX_hosted_page_logo_sha256', ['sha256'])
export class HostedPageLogoSqliteEntity extends HostedPageLogoColumns {
  @Column({ type: 'blob', nullable: false, name: 'bytes' }) bytes!: Buffer;
}

export type HostedPageLogoEntity = HostedPageLogoMysqlEntity | HostedPageLogoSqliteEntity;

/** The logo table's entity by driver (app/entities.ts lists both, the DataSource takes its driver's). */
export const LOGO_ENTITY = { mysql: HostedPageLogoMysqlEntity, sqlite: HostedPageLogoSqliteEntity } as const;
