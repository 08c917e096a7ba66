// Owns the business as the relying party (issue 19, ADR 0035): per business and environment its legal name,
// display name, contact email, privacy policy URL and default intended use (purpose), which wallets are shown
// through the registrar leaf's metadata and the sandbox registration certificate. Every change leaves an
// account_audit entry in the same transaction; bad input is validation_failed naming the field.
import type { DataSource, EntityManager } from 'typeorm';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import { inTransaction } from '../../db/data-source';
import { type AccountAuditWriter, pageBrandOf } from '../branding/branding.service';
import { RelyingPartyEntity } from './relying-party.entity';

export interface RelyingParty {
  legalName: string | null;
  displayName: string | null;
  contactEmail: string | null;
  privacyPolicyUrl: string | null;
  purpose: string | null;
}

export const RP_LIMITS = {
  legalName: 200,
  displayName: 80,
  contactEmail: 254,
  privacyPolicyUrl: 512,
  purpose: 300,
};

const bad = (param: string, message: string) => new AppError('validation_failed', message, { param });

/** A trimmed text of 1..max characters, or null for absent/null/empty. */
function textOf(value: unknown, param: keyof typeof RP_LIMITS): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw bad(param, `${param} must be a string.`);
  const t = value.trim();
  if (!t) return null;
  if ([...t].length > RP_LIMITS[param])
    throw bad(param, `${param} may have at most ${RP_LIMITS[param]} characters.`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(t)) throw bad(param, `${param} may not contain control characters.`);
  return t;
}

/** Validates and normalises the relying-party input (all fields replace the stored ones). */
export function normaliseRelyingParty(input: Record<string, unknown>): RelyingParty {
  const contactEmail = textOf(input.contactEmail, 'contactEmail');
  if (contactEmail && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contactEmail))
    throw bad('contactEmail', 'contactEmail must be an email address (name@example.com).');
  let privacyPolicyUrl = textOf(input.privacyPolicyUrl, 'privacyPolicyUrl');
  if (privacyPolicyUrl) {
    let u: URL | null = null;
    try {
      u = new URL(privacyPolicyUrl);
    } catch {
      u = null;
    }
    if (u?.protocol !== 'https:' || !u.hostname || u.username || u.password)
      throw bad('privacyPolicyUrl', 'privacyPolicyUrl must be an https:// URL without credentials.');
    privacyPolicyUrl = u.href;
    if (privacyPolicyUrl.length > RP_LIMITS.privacyPolicyUrl)
      throw bad(
        'privacyPolicyUrl',
        `privacyPolicyUrl may have at most ${RP_LIMITS.privacyPolicyUrl} characters.`,
      );
  }
  return {
    legalName: textOf(input.legalName, 'legalName'),
    displayName: textOf(input.displayName, 'displayName'),
    contactEmail,
    privacyPolicyUrl,
    purpose: textOf(input.purpose, 'purpose'),
  };
}

const EMPTY: RelyingParty = {
  legalName: null,
  displayName: null,
  contactEmail: null,
  privacyPolicyUrl: null,
  purpose: null,
};

/** The stored relying-party data of a business in an environment (all null when none). */
export async function relyingPartyOf(
  m: EntityManager,
  businessId: string,
  environment: string,
): Promise<RelyingParty> {
  const row = await m
    .getRepository(RelyingPartyEntity)
    .findOneBy({ businessId, environment: environment as 'sandbox' | 'production' });
  if (!row) return { ...EMPTY };
  const { legalName, displayName, contactEmail, privacyPolicyUrl, purpose } = row;
  return { legalName, displayName, contactEmail, privacyPolicyUrl, purpose };
}

export class RelyingPartyService {
  constructor(private readonly deps: { ds: DataSource; audit: AccountAuditWriter }) {}

  async get(ctx: Ctx): Promise<RelyingParty> {
    const { businessId, environment } = tenantOf(ctx);
    return relyingPartyOf(ctx.manager ?? this.deps.ds.manager, businessId, environment);
  }

  /** The one public name of the business here: what the hosted page and a registrar certificate show. */
  async publicName(
    ctx: Ctx,
  ): Promise<{ businessId: string; environment: 'sandbox' | 'production'; pageName: string }> {
    const { businessId, environment } = tenantOf(ctx);
    const brand = await pageBrandOf(this.deps.ds, businessId, environment);
    return { businessId, environment, pageName: brand.name };
  }

  /** Replaces the caller's environment's relying-party data; one account_audit entry in the same transaction. */
  async set(ctx: Ctx, input: Record<string, unknown>): Promise<RelyingParty> {
    const value = normaliseRelyingParty(input);
    const { businessId, environment } = tenantOf(ctx);
    const a = ctx.actor;
    const actor =
      a.kind === 'dashboard'
        ? { kind: 'user' as const, id: a.userId }
        : { kind: 'system' as const, id: a.kind === 'api_key' ? `api_key:${a.apiKeyId}` : a.kind };
    await inTransaction(this.deps.ds, ctx.manager, async (m) => {
      await m
        .getRepository(RelyingPartyEntity)
        .save({ businessId, environment, ...value, updatedAt: ctx.clock.now() });
      await this.deps.audit(m, {
        businessId,
        actor,
        action: 'relying_party.set',
        target: environment,
        detail: { environment, ...value },
      });
    });
    return value;
  }
}
