// What the parts of the accounts module share (ADR 0011, 0012): views, limits, input checks, the base class.
import { createHmac } from 'node:crypto';
import { type DataSource, type EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import type { Actor, Ctx } from '../../common/context';
import { AppError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { ROLES, type Role } from '../../common/roles';
import type { Environment } from '../../config/config';
import { BusinessEntity } from '../tenancy/business.entity';
import type { TenancyService } from '../tenancy/tenancy.service';
import { DashboardUserEntity } from './accounts.entities';
import { type AccountAuditEntry, writeAccountAudit } from './audit';

/** The part of the shared mail sender (modules/mail) this module uses. */
export interface AccountMailer {
  send(message: { to: string; subject: string; text: string; html?: string }): Promise<{ messageId: string }>;
}

export const INVITATION_TTL_MS = 24 * 60 * 60 * 1000;
/** Sign-in links one person can be sent per hour (the rest of the requests are answered 202, silently). */
export const SIGN_IN_LINKS_PER_HOUR = 5;
export const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
export const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export interface SignedIn {
  /** The cookie value: returned once, stored only as its SHA-256. */
  token: string;
  /** Send back as X-CSRF-Token on every cookie-authenticated GraphQL request and unsafe /auth call. */
  csrfToken: string;
  sessionId: string;
  expiresAt: Date;
  user: UserView;
}

export interface UserView {
  id: string;
  email: string;
  role: Role;
  businessId: string;
  createdAt: Date;
}

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
}

export interface SessionListItem {
  id: string;
  method: string;
  userAgent: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  current: boolean;
}

export interface ApiKeyView {
  id: string;
  prefix: string;
  label: string;
  environment: Environment;
  scopes: string[] | null;
  createdBy: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export const normEmail = (raw: unknown): string => {
  const e = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (!EMAIL_RE.test(e) || e.length > 320)
    throw new AppError('validation_failed', 'A valid email address is required.', { param: 'email' });
  return e;
};

export const userView = (u: DashboardUserEntity): UserView => ({
  id: u.id,
  email: u.email,
  role: u.role,
  businessId: u.businessId,
  createdAt: u.createdAt,
});

/** The CSRF token of a session: derived from the cookie token, so nothing more is stored. */
export const csrfFor = (token: string): string =>
  createHmac('sha256', token).update('dashboard-csrf').digest('base64url');

export function parseRole(raw: unknown): Role {
  if (typeof raw === 'string' && (ROLES as readonly string[]).includes(raw)) return raw as Role;
  throw new AppError('validation_failed', `role must be one of ${ROLES.join(', ')}.`, { param: 'role' });
}

/** What every part of the accounts module is built from. */
export interface AccountsDeps {
  ds: DataSource;
  clock: Clock;
  logger: Logger;
  tenancy: TenancyService;
  mail: AccountMailer;
  /** The dashboard origin: links point here and passkeys are bound to its host. */
  dashboardUrl: string;
}

/** The helpers the parts share: the clock, the account audit row, the acting dashboard user, the origin. */
export abstract class AccountsPart {
  protected readonly rpId: string;
  protected readonly origin: string;

  constructor(protected readonly deps: AccountsDeps) {
    const u = new URL(deps.dashboardUrl);
    this.rpId = u.hostname;
    this.origin = u.origin;
  }

  protected now(): Date {
    return this.deps.clock.now();
  }

  /** Writes an account audit row in the caller's transaction. */
  async audit(m: EntityManager, e: AccountAuditEntry): Promise<void> {
    await writeAccountAudit(m, this.now(), e);
  }

  /** The dashboard user acting in ctx, or dashboard_user_required. */
  protected userOf(ctx: Ctx): Extract<Actor, { kind: 'dashboard' }> & { role: Role } {
    const a = ctx.actor;
    if (a.kind !== 'dashboard' || !a.role) throw new AppError('dashboard_user_required');
    return a as Extract<Actor, { kind: 'dashboard' }> & { role: Role };
  }

  /** The signed-in dashboard user, or unauthenticated when the account is gone. */
  async me(ctx: Ctx): Promise<UserView> {
    const me = this.userOf(ctx);
    const u = await this.deps.ds.getRepository(DashboardUserEntity).findOneBy({ id: me.userId });
    if (!u) throw new AppError('unauthenticated');
    return userView(u);
  }

  /** The business the signed-in user belongs to (its name heads the dashboard's first screen). */
  async business(ctx: Ctx): Promise<{ id: string; name: string }> {
    const me = this.userOf(ctx);
    const b = await this.deps.ds.getRepository(BusinessEntity).findOneBy({ id: me.businessId });
    if (!b) throw new AppError('unauthenticated');
    return { id: b.id, name: b.name };
  }
}
