// Owns the hosted page settings a business sets per environment (issue 10, ADR 0019): the return_url origins
// and the check a session create runs on its return_url against them, and the branding (display name, accent
// colour, logo). Every change leaves an account_audit entry (who, what, when) in the same transaction.
import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { inTransaction, isMysql } from '../../db/data-source';
import { sql } from '../../db/fast-sql';
import { type HostedPageLogoEntity, HostedPageSettingsEntity, LOGO_ENTITY } from './branding.entity';
import { type LogoHeader, readLogoHeader } from './logo-image';

export const RETURN_LIMITS = { maxOrigins: 20, urlMaxLength: 2048 } as const;

/** What a logo may be: bytes of the file, and pixels per side (from the image header). */
export const LOGO_LIMITS = { maxBytes: 256 * 1024, minSide: 16, maxSide: 2048 } as const;

/** Where the hosted page and the dashboard load a logo from: keyed by content hash, cached for a year. */
export const LOGO_PATH = '/branding/logos';
export const logoUrlOf = (sha256: string): string => `${LOGO_PATH}/${sha256}`;

/**
 * The normalised origin of an absolute http(s) URL (WHATWG: lower-case host, punycode, default port dropped),
 * or null when it is not one. URLs with credentials are refused: they would be shown to the signer.
 */
function parseHttpUrl(raw: string): URL | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  if (u.username || u.password || !u.hostname) return null;
  return u;
}

/** Normalises one registered origin; an origin is scheme, host and port only (no path, query or fragment). */
export function normaliseOrigin(raw: string, environment: Environment): string {
  const u = typeof raw === 'string' && raw.length <= 255 ? parseHttpUrl(raw.trim()) : null;
  if (!u || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || raw.trim().endsWith('?'))
    throw new AppError(
      'validation_failed',
      'Each origin must be scheme://host[:port], for example https://shop.example.',
      { param: 'origins' },
    );
  if (environment === 'production' && u.protocol !== 'https:')
    throw new AppError('validation_failed', 'Production return origins must use https.', {
      param: 'origins',
    });
  return u.origin;
}

/** An account_audit entry (AccountsService.audit), written in the caller's transaction. */
export type AccountAuditWriter = (
  m: EntityManager,
  e: {
    businessId: string | null;
    actor: { kind: 'user' | 'operator' | 'system'; id: string };
    action: string;
    target?: string | null;
    detail?: Record<string, unknown>;
  },
) => Promise<void>;

export interface BrandingDeps {
  ds: DataSource;
  /** Records who changed the settings (accounts module's account_audit). */
  audit: AccountAuditWriter;
}

/** The logo entity class of the data source's driver (MEDIUMBLOB on MySQL, BLOB on SQLite). */
const logoEntity = (m: EntityManager) =>
  m.dataSource.options.type === 'mysql' || m.dataSource.options.type === 'mariadb'
    ? LOGO_ENTITY.mysql
    : LOGO_ENTITY.sqlite;

export class BrandingService {
  constructor(private readonly deps: BrandingDeps) {}

  /** The registered return origins of the caller's environment, normalised and sorted. */
  async returnOrigins(ctx: Ctx): Promise<string[]> {
    const { businessId, environment } = tenantOf(ctx);
    return readOrigins(ctx.manager ?? this.deps.ds.manager, businessId, environment);
  }

  /** Replaces the registered return origins of the caller's environment (an empty list allows none). */
  async setReturnOrigins(ctx: Ctx, origins: unknown): Promise<string[]> {
    const { environment } = tenantOf(ctx);
    if (!Array.isArray(origins) || origins.some((o) => typeof o !== 'string'))
      throw new AppError('validation_failed', 'origins must be a list of strings.', { param: 'origins' });
    if (origins.length > RETURN_LIMITS.maxOrigins)
      throw new AppError('validation_failed', `At most ${RETURN_LIMITS.maxOrigins} origins.`, {
        param: 'origins',
      });
    const normalised = [...new Set(origins.map((o: string) => normaliseOrigin(o, environment)))].sort();
    const now = ctx.clock.now();
    await this.write(ctx, { origins: JSON.stringify(normalised), updatedAt: now }, async (m) =>
      this.record(ctx, m, 'return_origins.set', { origins: normalised }),
    );
    return normalised;
  }

  /** The branding of the caller's environment (nulls: the defaults). */
  async branding(ctx: Ctx): Promise<Branding> {
    const { businessId, environment } = tenantOf(ctx);
    return brandingOf(ctx.manager ?? this.deps.ds.manager, businessId, environment);
  }

  /**
   * Sets the branding of the caller's environment. displayName: 1-80 characters after trimming, or null for
   * the business name. accentColor: `#rrggbb` with at least 4.5:1 contrast against white (WCAG AA for the
   * white button text on it), or null for the default.
   */
  async setBranding(ctx: Ctx, input: { displayName?: unknown; accentColor?: unknown }): Promise<Branding> {
    const displayName = normaliseDisplayName(input.displayName);
    const accentColor = normaliseAccent(input.accentColor);
    const row = await this.write(ctx, { displayName, accentColor, updatedAt: ctx.clock.now() }, (m) =>
      this.record(ctx, m, 'branding.set', { displayName, accentColor }),
    );
    return viewOf(row);
  }

  /**
   * Replaces the logo of the caller's environment with these exact bytes: a PNG, JPEG or WebP image (told by
   * its magic bytes) of at most LOGO_LIMITS.maxBytes and LOGO_LIMITS.minSide..maxSide pixels per side.
   * A refused file changes nothing.
   */
  async setLogo(ctx: Ctx, bytes: Buffer): Promise<Branding> {
    const header = checkLogo(bytes);
    const { businessId, environment } = tenantOf(ctx);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const now = ctx.clock.now();
    const row = await this.write(ctx, { logoSha256: sha256, updatedAt: now }, async (m) => {
      const repo = m.getRepository<HostedPageLogoEntity>(logoEntity(m));
      await repo.delete({ businessId, environment });
      await repo.insert({
        businessId,
        environment,
        sha256,
        ...header,
        size: bytes.length,
        createdAt: now,
        bytes,
      });
      await this.record(ctx, m, 'branding.logo.set', { sha256, ...header, size: bytes.length });
    });
    return viewOf(row);
  }

  /** Removes the logo of the caller's environment (nothing to remove: no change and no audit entry). */
  async removeLogo(ctx: Ctx): Promise<Branding> {
    const { businessId, environment } = tenantOf(ctx);
    const row = await this.write(ctx, { logoSha256: null, updatedAt: ctx.clock.now() }, async (m, before) => {
      const removed = await m
        .getRepository<HostedPageLogoEntity>(logoEntity(m))
        .delete({ businessId, environment });
      if (before || removed.affected) await this.record(ctx, m, 'branding.logo.remove', { sha256: before });
    });
    return viewOf(row);
  }

  /** A logo by content hash, for serving (any tenant's: the hash is of public bytes); null when none. */
  async logoByHash(sha256: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    const m = this.deps.ds.manager;
    const row = await m
      .getRepository<HostedPageLogoEntity>(logoEntity(m))
      .findOne({ where: { sha256 }, select: { bytes: true, contentType: true, sha256: true } });
    return row ? { bytes: Buffer.from(row.bytes), contentType: row.contentType } : null;
  }

  /** Writes the settings row, then calls `then` in the same transaction; answers the row as written. */
  private write(
    ctx: Ctx,
    patch: SettingsPatch,
    then: (m: EntityManager, logoBefore: string | null) => Promise<void>,
  ): Promise<HostedPageSettingsEntity> {
    return writeSettings(this.deps.ds, ctx, patch, then);
  }

  /** One account_audit entry for a change of the caller's environment's settings. */
  private async record(ctx: Ctx, m: EntityManager, action: string, detail: Record<string, unknown>) {
    const { businessId, environment } = tenantOf(ctx);
    const a = ctx.actor;
    const actor =
      a.kind === 'dashboard'
        ? { kind: 'user' as const, id: a.userId }
        : a.kind === 'api_key'
          ? { kind: 'system' as const, id: `api_key:${a.apiKeyId}` }
          : { kind: 'system' as const, id: a.kind };
    await this.deps.audit(m, {
      businessId,
      actor,
      action,
      target: environment,
      detail: { environment, ...detail },
    });
  }
}

export interface Branding {
  displayName: string | null;
  accentColor: string | null;
  /** Path of the logo on this service (`/branding/logos/<sha256>`); null: no logo. */
  logoUrl: string | null;
}

type BrandingRow = Pick<HostedPageSettingsEntity, 'displayName' | 'accentColor' | 'logoSha256'>;

const viewOf = (row: BrandingRow | null | undefined): Branding => ({
  displayName: row?.displayName ?? null,
  accentColor: row?.accentColor ?? null,
  logoUrl: row?.logoSha256 ? logoUrlOf(row.logoSha256) : null,
});

/** The header of an acceptable logo, or the refusal (nothing is stored on a refusal). */
export function checkLogo(bytes: Buffer): LogoHeader {
  if (bytes.length > LOGO_LIMITS.maxBytes)
    throw new AppError(
      'logo_too_large',
      `The logo has ${bytes.length} bytes; at most ${LOGO_LIMITS.maxBytes} (256 KiB) are allowed.`,
      { param: 'logo', extra: { max_bytes: LOGO_LIMITS.maxBytes } },
    );
  const header = readLogoHeader(bytes);
  if (!header)
    throw new AppError(
      'logo_type_unsupported',
      'The logo must be a PNG, JPEG or WebP image (judged by its content, not its name or declared type; SVG is not accepted).',
      { param: 'logo' },
    );
  const { width, height } = header;
  const { minSide, maxSide } = LOGO_LIMITS;
  if (width < minSide || height < minSide || width > maxSide || height > maxSide)
    throw new AppError(
      'logo_dimensions_invalid',
      `The logo is ${width}x${height} pixels; each side must be ${minSide} to ${maxSide} pixels.`,
      { param: 'logo', extra: { width, height } },
    );
  return header;
}

type SettingsPatch = Partial<
  Pick<HostedPageSettingsEntity, 'origins' | 'displayName' | 'accentColor' | 'logoSha256'>
> & { updatedAt: Date };

function normaliseDisplayName(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  const s = typeof v === 'string' ? v.trim() : '';
  // control characters would render as nothing or break the page title
  if (s.length < 1 || s.length > 80 || [...s].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127))
    throw new AppError('validation_failed', 'displayName must be 1 to 80 printable characters.', {
      param: 'displayName',
    });
  return s;
}

/** WCAG 2.x relative luminance of an sRGB `#rrggbb`. */
function luminance(hex: string): number {
  const ch = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (ch[0] as number) + 0.7152 * (ch[1] as number) + 0.0722 * (ch[2] as number);
}

/** Contrast ratio of a colour against white (luminance 1). */
export const contrastWithWhite = (hex: string): number => 1.05 / (luminance(hex) + 0.05);

function normaliseAccent(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(v))
    throw new AppError('validation_failed', 'accentColor must be a colour as #rrggbb.', {
      param: 'accentColor',
    });
  const hex = v.toLowerCase();
  const ratio = contrastWithWhite(hex);
  if (ratio < 4.5)
    throw new AppError(
      'branding_contrast_insufficient',
      `White text on ${hex} has a contrast ratio of ${ratio.toFixed(2)}:1; WCAG AA needs at least 4.5:1. Choose a darker colour.`,
      { param: 'accentColor', extra: { contrast_ratio: Math.floor(ratio * 100) / 100 } },
    );
  return hex;
}

/**
 * Updates the settings row of the caller's tenant (locked), creating it (no origins, default branding)
 * first; then runs `then` in the same transaction with the row as written and the logo hash before.
 */
async function writeSettings(
  ds: DataSource,
  ctx: Ctx,
  patch: SettingsPatch,
  then: (m: EntityManager, logoBefore: string | null) => Promise<void>,
): Promise<HostedPageSettingsEntity> {
  const { businessId, environment } = tenantOf(ctx);
  return inTransaction(ds, ctx.manager, async (m) => {
    const repo = m.getRepository(HostedPageSettingsEntity);
    const qb = repo
      .createQueryBuilder('s')
      .where('s.businessId = :businessId AND s.environment = :environment', { businessId, environment });
    if (isMysql(ds)) qb.setLock('pessimistic_write');
    const before = await qb.getOne();
    const row: HostedPageSettingsEntity = before
      ? { ...before, ...patch }
      : {
          businessId,
          environment,
          origins: '[]',
          displayName: null,
          accentColor: null,
          logoSha256: null,
          ...patch,
        };
    if (before) await repo.update({ businessId, environment }, patch);
    else await repo.insert(row);
    await then(m, before?.logoSha256 ?? null);
    return row;
  });
}

/** The branding of a tenant; the hosted page reads it for a session's business and environment. */
export async function brandingOf(
  m: EntityManager,
  businessId: string,
  environment: Environment,
): Promise<Branding> {
  return viewOf(await m.getRepository(HostedPageSettingsEntity).findOneBy({ businessId, environment }));
}

/**
 * What the hosted page shows of the business, read on every status projection: its branding in `environment`
 * and the name to show (the display name, else the business's name; '' without a business row), in one
 * statement on the engine's driver (db/fast-sql.ts) instead of two repository reads.
 */
export async function pageBrandOf(
  ds: DataSource,
  businessId: string,
  environment: Environment,
): Promise<Branding & { name: string }> {
  const rows = await sql<Record<string, string | null>[]>(
    ds,
    'SELECT b.name, h.display_name, h.accent_color, h.logo_sha256, r.display_name AS rp_display_name FROM business b LEFT JOIN hosted_page_settings h ON h.business_id = b.id AND h.environment = ? LEFT JOIN relying_party r ON r.business_id = b.id AND r.environment = ? WHERE b.id = ?',
    [environment, environment, businessId],
  );
  return pageBrandOfRow(rows[0]);
}

/**
 * The page's brand from a row of business `name`, hosted_page_settings `display_name`, `accent_color`,
 * `logo_sha256` and relying_party `rp_display_name` (pageBrandOf's statement, or a read model joining the same).
 */
export function pageBrandOfRow(r: Record<string, unknown> | undefined): Branding & { name: string } {
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const brand = viewOf(
    r && {
      displayName: str(r.display_name),
      accentColor: str(r.accent_color),
      logoSha256: str(r.logo_sha256),
    },
  );
  // one public name for the page and the wallet (ADR 0052): the relying party's, else the page's, else the business's
  return { ...brand, name: str(r?.rp_display_name) ?? brand.displayName ?? str(r?.name) ?? '' };
}

async function readOrigins(
  m: EntityManager,
  businessId: string,
  environment: Environment,
): Promise<string[]> {
  const row = await m.getRepository(HostedPageSettingsEntity).findOneBy({ businessId, environment });
  return row ? (JSON.parse(row.origins) as string[]) : [];
}

/**
 * Validates a create's return_url: undefined/null means none; else an absolute http(s) URL whose origin the
 * business registered for this environment. Runs in the create's transaction.
 */
export async function checkReturnUrl(
  m: EntityManager,
  tenant: { businessId: string; environment: Environment },
  returnUrl: unknown,
): Promise<string | null> {
  if (returnUrl === undefined || returnUrl === null) return null;
  if (typeof returnUrl !== 'string' || returnUrl.length > RETURN_LIMITS.urlMaxLength)
    throw new AppError(
      'validation_failed',
      `return_url must be an absolute URL of at most ${RETURN_LIMITS.urlMaxLength} characters.`,
      { param: 'return_url' },
    );
  const u = parseHttpUrl(returnUrl);
  if (!u)
    throw new AppError('validation_failed', 'return_url must be an absolute http(s) URL.', {
      param: 'return_url',
    });
  const origins = await readOrigins(m, tenant.businessId, tenant.environment);
  if (!origins.includes(u.origin) || (tenant.environment === 'production' && u.protocol !== 'https:'))
    throw new AppError(
      'return_url_not_allowed',
      `The origin ${u.origin} is not registered for the ${tenant.environment} environment; add it with setReturnOrigins in the dashboard.`,
      { param: 'return_url' },
    );
  return u.href;
}
