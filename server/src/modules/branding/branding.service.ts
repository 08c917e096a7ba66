// Owns the return_url origins a business registers per environment (issue 10, ADR 0019), and the check a
// session create runs on its return_url against them.
import type { DataSource, EntityManager } from 'typeorm';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { inTransaction, isMysql } from '../../db/data-source';
import { HostedPageSettingsEntity } from './branding.entity';

export const RETURN_LIMITS = { maxOrigins: 20, urlMaxLength: 2048 } as const;

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

export interface BrandingDeps {
  ds: DataSource;
}

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
    await writeSettings(this.deps.ds, ctx, { origins: JSON.stringify(normalised), updatedAt: now });
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
    await writeSettings(this.deps.ds, ctx, { displayName, accentColor, updatedAt: ctx.clock.now() });
    return { displayName, accentColor };
  }
}

export interface Branding {
  displayName: string | null;
  accentColor: string | null;
}

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

/** Updates the settings row of the caller's tenant, creating it (no origins, default branding) first. */
async function writeSettings(
  ds: DataSource,
  ctx: Ctx,
  patch: Partial<Pick<HostedPageSettingsEntity, 'origins' | 'displayName' | 'accentColor'>> & {
    updatedAt: Date;
  },
): Promise<void> {
  const { businessId, environment } = tenantOf(ctx);
  await inTransaction(ds, ctx.manager, async (m) => {
    const repo = m.getRepository(HostedPageSettingsEntity);
    const qb = repo
      .createQueryBuilder('s')
      .where('s.businessId = :businessId AND s.environment = :environment', { businessId, environment });
    if (isMysql(ds)) qb.setLock('pessimistic_write');
    if (await qb.getOne()) await repo.update({ businessId, environment }, patch);
    else
      await repo.insert({
        businessId,
        environment,
        origins: '[]',
        displayName: null,
        accentColor: null,
        ...patch,
      });
  });
}

/** The branding of a tenant; the hosted page reads it for a session's business and environment. */
export async function brandingOf(
  m: EntityManager,
  businessId: string,
  environment: Environment,
): Promise<Branding> {
  const row = await m.getRepository(HostedPageSettingsEntity).findOneBy({ businessId, environment });
  return { displayName: row?.displayName ?? null, accentColor: row?.accentColor ?? null };
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
