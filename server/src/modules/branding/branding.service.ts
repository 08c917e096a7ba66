// Owns the return_url origins a business registers per environment (issue 10, ADR 0019), and the check a
// session create runs on its return_url against them.
import type { DataSource, EntityManager } from 'typeorm';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { inTransaction } from '../../db/data-source';
import { ReturnOriginsEntity } from './branding.entity';

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
    const { businessId, environment } = tenantOf(ctx);
    if (!Array.isArray(origins) || origins.some((o) => typeof o !== 'string'))
      throw new AppError('validation_failed', 'origins must be a list of strings.', { param: 'origins' });
    if (origins.length > RETURN_LIMITS.maxOrigins)
      throw new AppError('validation_failed', `At most ${RETURN_LIMITS.maxOrigins} origins.`, {
        param: 'origins',
      });
    const normalised = [...new Set(origins.map((o: string) => normaliseOrigin(o, environment)))].sort();
    const now = ctx.clock.now();
    await inTransaction(this.deps.ds, ctx.manager, async (m) => {
      // upsert by primary key: a save reads then writes, one row per (business, environment)
      await m.getRepository(ReturnOriginsEntity).save({
        businessId,
        environment,
        origins: JSON.stringify(normalised),
        updatedAt: now,
      });
    });
    return normalised;
  }
}

async function readOrigins(
  m: EntityManager,
  businessId: string,
  environment: Environment,
): Promise<string[]> {
  const row = await m.getRepository(ReturnOriginsEntity).findOneBy({ businessId, environment });
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
